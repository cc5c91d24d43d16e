"""Generated code for the arena.v1 wire contract (proto/arena/v1). Do not edit: run scripts/gen_proto."""
