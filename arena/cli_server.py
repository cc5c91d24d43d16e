"""``arena server``: the authenticated web service participants and organisers talk to."""

from __future__ import annotations

import typer

app = typer.Typer()
