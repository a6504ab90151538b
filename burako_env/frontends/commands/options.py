"""The options that several commands of ``burako`` take alike."""

from __future__ import annotations

from typing import Annotated

import typer

from burako_env.frontends.commands.common import fail

VariantOpt = Annotated[
    str, typer.Option("--variant", "-v", help="argentine, italian, brazilian, colombian or a YAML")
]
PlayersOpt = Annotated[int | None, typer.Option("--players", "-p", help="number of players")]
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray", help="run on Ray: the cluster at --ray-address / RAY_ADDRESS, else a local one"
    ),
]
GreedyOpt = Annotated[
    bool | None,
    typer.Option(
        "--greedy/--sample",
        help="learned agents (ppo, ppo:PATH) play their most likely legal move (the default) "
        "or sample from their policy",
        show_default=False,
    ),
]


def _ray_address(value: str | None) -> str | None:
    # an empty address read as "none given" and started a local Ray instance
    if value is not None and not value.strip():
        fail("--ray-address is empty: give HOST:PORT (e.g. 10.0.0.5:6379), or leave it out")
    return value


RayAddressOpt = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        help="Ray cluster address, e.g. 10.0.0.5:6379 (default: RAY_ADDRESS)",
        callback=_ray_address,
    ),
]

__all__ = ["GreedyOpt", "PlayersOpt", "RayAddressOpt", "RayOpt", "VariantOpt"]
