"""``arena collusion GAME``: the organiser's list of pairs of accounts (or bots) whose play together
departs from honest play (issue 36; the statistics: ``arena.ratings.collusion``, the reading:
``arena.storage.collusion``).

Locally it reads this machine's Redis (whoever can read it is the organiser); with ``--server URL``
it asks the server's organiser-only endpoint ``GET /api/v1/games/GAME/collusion`` with the token of
``--organiser-token-file``. The table shows the strongest pairs first, each with its strongest test;
``--json`` prints the whole report.
"""

from __future__ import annotations

import json
from typing import Annotated, Any
from urllib.parse import quote, urlencode

import typer

from arena.cli.connections import on_redis, organiser_token, remote, server_only
from arena.cli.errors import CliError
from arena.cli.options import GameArgument, JsonOption, OrganiserTokenOption, RedisOption, ServerOption
from arena.console import printable
from arena.games import GameError, get_game
from arena.ratings.collusion import FLAG_ALPHA
from arena.storage import collusion

app = typer.Typer()

WHAT = {  # how a test's finding reads, ``first`` and ``second`` filled in
    "above": "{first} finished above {second} more often than the ratings predict",
    "yields": "{first} lost more than the ratings predict at tables with {second}",
    "leak": "{first}'s think times carry its hidden hand at tables with {second}",
    "sync": "{first}'s and {second}'s think times move together",
}


@app.command("collusion")
def collusion_command(
    game: GameArgument,
    top: Annotated[int, typer.Option("--top", min=1, help="Pairs to show, strongest first.")] = 20,
    last: Annotated[
        int | None, typer.Option("--last", min=1, help="Only the latest N recorded matches [default: all].")
    ] = None,
    alpha: Annotated[
        float,
        typer.Option(
            "--alpha",
            min=1e-9,
            max=0.5,
            help="Family-wise false-alarm rate of the flags (Holm over all tests).",
        ),
    ] = FLAG_ALPHA,
    as_json: JsonOption = False,
    redis_: RedisOption = None,
    server_: ServerOption = None,
    organiser_token_file: OrganiserTokenOption = None,
) -> None:
    """List the pairs of accounts (or bots without one) whose results together depart from the fitted
    ratings, or whose think times carry a hidden hand or move together, strongest first (organiser)."""
    try:
        name = get_game(game).spec.name
    except GameError as exc:
        raise CliError(str(exc)) from None
    server_only(server_, redis_=redis_)
    if server_:
        if organiser_token_file is None:
            raise CliError(
                "the collusion report on a server needs --organiser-token-file (the organiser's token)"
            )
        token = organiser_token(organiser_token_file)
        query = urlencode({"top": top, "alpha": alpha, **({"last": last} if last else {})})
        path = f"/api/v1/games/{quote(name, safe='')}/collusion?{query}"
        shown = remote(server_, lambda c: c.call("GET", path, token=token))
    else:
        shown = {
            "game": name,
            **on_redis(redis_, lambda c: collusion.report(c, name, alpha, last).to_json(top)),
        }
    typer.echo(json.dumps(shown, indent=2) if as_json else format_report(shown))


def format_report(report: dict[str, Any]) -> str:
    """Returns the report as a table: one row per pair, its strongest test, and what it means."""
    head = (
        f"{report['game']}: {report['matches']} matches, {report['groups']} accounts or bots, "
        f"{report['tests']} tests; p corrected by Holm, flagged at {report['alpha']:g} "
        f"(the chance of any flag among honest players): {report['flagged']} pair(s) flagged"
    )
    rows = [("rank", "pair", "test", "tables", "observed", "expected", "p", "p (Holm)", "")]
    notes = []
    for pair in report["pairs"]:
        best = pair["findings"][0]
        rows.append(
            (
                str(pair["rank"]),
                " + ".join(pair["groups"]),
                best["test"],
                str(best["tables"]),
                f"{best['observed']:g}",
                f"{best['expected']:.3g}",
                f"{best['p']:.3g}",
                f"{best['p_holm']:.3g}",
                "FLAG" if pair["flagged"] else "",
            )
        )
        if pair["flagged"]:
            notes.append(f"  {pair['rank']}: " + printable(WHAT[best["test"]].format(**best)))
    if len(rows) == 1:
        return head + "\nno two accounts or bots have shared a table yet"
    widths = [max(len(printable(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(printable(c).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    return "\n".join([head, "", *lines, *(["", *notes] if notes else [])])
