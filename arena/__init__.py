"""arena: an AI tournament platform for four tabletop games, played by bots over gRPC."""

__version__ = "0.1.0"
