"""``arena view``: the web replay viewer for replay files on this machine (any game of ``arena match``),
with each seat's output beside the step it was written during and its think times charted against the
deadline. ``arena match ... --view`` opens the games it just played.

The page is the leaderboard's own (``leaderboard/static``: the same viewer and the same per-game
drawings, so a local game looks exactly as a tournament's does), served by a small app that answers
the few API routes a replay page reads from the files given instead of Redis. The bot output and
think times come from the match log beside each replay (``arena.referee.botlog``), attached to the
frames they belong to; ``arena/view_static/view.js`` draws the log panel and the chart.
"""

from __future__ import annotations

import socket
import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from arena.cli.errors import CliError
from arena.referee.botlog import MatchLogError, find_match_log, read_match_log
from arena.referee.replay import ReplayError, opening, read_lines
from leaderboard import frames
from leaderboard.app import SECURITY_HEADERS, STATIC

HERE_STATIC = Path(__file__).parent.parent / "view_static"

app = typer.Typer()


def replay_files(paths: list[Path]) -> dict[str, Path]:
    """Returns the replays to show by id (the file's name without .jsonl, made unique): each file
    given, and the replays in each folder given; raises CliError for a path that is neither."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(path.glob("*.jsonl")))
        elif path.is_file():
            found.append(path)
        else:
            raise CliError(f"{path}: no such replay file or folder")
    if not found:
        raise CliError(f"no replay (.jsonl) in {', '.join(map(str, paths))}: give files arena match wrote")
    files: dict[str, Path] = {}
    for path in found:
        name = path.name.removesuffix(".jsonl")
        key, number = name, 1
        while key in files:
            number += 1
            key = f"{name}~{number}"
        files[key] = path
    return files


def summary(lines: list[dict[str, Any]], match_id: str) -> dict[str, Any]:
    """Returns what the replay page shows above the viewer: game, players with rank and score, seed,
    steps and termination (from the result line; an unfinished replay shows its players unranked)."""
    header = lines[0]
    result = next((x for x in reversed(lines) if x.get("type") == "result"), None)
    players = (result or {}).get("players") or [
        {"seat": seat, "bot": p["bot"], "score": 0, "rank": 0, "forfeit": False, "strikes": 0}
        for seat, p in enumerate(header["players"])
    ]
    return {
        "match_id": match_id,
        "game": header["game"],
        "seed": str(header["seed"]),  # as text: a 64-bit seed is past what a JavaScript number holds
        "players": players,
        "steps": (result or {}).get("steps", 0),
        "termination": (result or {}).get("termination", "unfinished"),
    }


def view_data(path: Path) -> dict[str, Any]:
    """Returns the replay at ``path`` re-run into the viewer's frames, each frame with the bots'
    output lines stamped with its step (``logs``) and its decisions' think times (``think``); the
    start frame has the lines written before a seat's first decision. Raises ReplayError."""
    opening(read_lines(path))  # checked here first: a malformed replay gets its one-line reason
    replay = frames.frames(path.read_text(encoding="utf-8"))
    try:
        log = read_match_log(path)
    except MatchLogError as exc:
        replay["match_log"] = {"found": False, "problem": str(exc)}
        return replay
    replay["match_log"] = {"found": True, "path": str(find_match_log(path))}
    return frames.with_match_log(replay, log)


def create_view_app(files: dict[str, Path]) -> Starlette:
    """Returns the app serving the replay pages of ``files`` (id -> replay path)."""

    def path_of(request: Request) -> Path:
        match_id = request.path_params["match_id"]
        if match_id not in files:
            raise KeyError(match_id)
        return files[match_id]

    def api_match(request: Request) -> Response:
        path = path_of(request)
        try:
            return JSONResponse(summary(read_lines(path), request.path_params["match_id"]))
        except ReplayError as exc:
            return JSONResponse({"error": str(exc)}, status_code=422)

    def api_replay(request: Request) -> Response:
        try:
            return JSONResponse(view_data(path_of(request)))
        except (ReplayError, OSError, UnicodeDecodeError) as exc:
            return JSONResponse({"error": f"the replay does not re-run: {exc}"}, status_code=422)

    def api_games(request: Request) -> Response:
        return JSONResponse([])  # the navigation bar: no leaderboard here

    def page(request: Request) -> Response:
        path_of(request)
        return FileResponse(HERE_STATIC / "index.html")

    def home(request: Request) -> Response:
        return RedirectResponse(f"/matches/{next(iter(files))}")

    async def missing(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": f"no replay {exc} here: arena view serves only the files given"}, 404)

    async def headers(request: Request, call_next: Any) -> Response:
        response = await call_next(request)
        response.headers.update(SECURITY_HEADERS)
        return response

    routes = [
        Route("/", home),
        Route("/api/games", api_games),
        Route("/api/stamp", lambda request: JSONResponse({})),
        Route("/api/matches/{match_id}", api_match),
        Route("/api/matches/{match_id}/replay", api_replay),
        Route("/matches/{match_id}", page),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
        Mount("/local", StaticFiles(directory=HERE_STATIC), name="local"),
    ]
    return Starlette(
        routes=routes,
        middleware=[Middleware(BaseHTTPMiddleware, dispatch=headers)],
        exception_handlers={KeyError: missing},
    )


def serve(files: dict[str, Path], host: str, port: int, open_browser: bool) -> None:
    """Serves the replay pages until Ctrl-C; prints the address first (and opens it when asked)."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)  # connections wait in the backlog until uvicorn serves: the address works once shown
    except OSError as exc:
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror}; give another --port") from None
    url = f"http://{host}:{sock.getsockname()[1]}/matches/{next(iter(files))}"
    typer.echo(f"arena: viewing {len(files)} replay{'s' if len(files) > 1 else ''} at {url} (Ctrl-C to stop)")
    if open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(create_view_app(files), log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])


@app.command("view")
def view_command(
    paths: Annotated[
        list[Path], typer.Argument(metavar="REPLAY...", help="Replay files, or folders of them.")
    ],
    host: Annotated[
        str, typer.Option(help="Address to serve on (loopback: only this machine).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port to serve on; 0: a free one.")] = 0,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Only print the address; do not open a browser.")
    ] = False,
) -> None:
    """Serve the web replay viewer for local replay files, with the bots' output beside each step and
    their think times against the deadline."""
    serve(replay_files(paths), host, port, not no_browser)
