"""Agents that play Burako from an observation and a legal-action mask.

``make_agent(name, seed=0, **kw)`` builds one by name: ``random``, ``greedy``,
``discard_table``, ``discard_table:cautious`` / ``discard_table:thrifty`` /
``discard_table:danger_fit=60,...`` (the same with other weights: see
:data:`burako_env.agents.heuristic.WEIGHT_PRESETS`), ``ppo`` (the shipped policy of the table it
plays) / ``ppo:PATH``,
``pimc`` / ``pimc:k=64,rollout=greedy`` (a search agent: see :mod:`burako_env.agents.pimc`),
``ppo_search`` / ``ppo_search:k=48,top=4`` (the policy steering a search: see
:mod:`burako_env.agents.policy_search`),
``openspiel_ismcts`` / ``openspiel_ismcts:sims=100`` (OpenSpiel's IS-MCTS, with the
``openspiel`` extra: see :mod:`burako_env.agents.openspiel_ismcts`) and
whatever :func:`register_agent` adds.

Layers: the agents import the engine (``burako_env``) and each other, never ``training/``,
which builds on them (the network and the policy file are :mod:`burako_env.agents.network` and
:mod:`burako_env.agents.policy_file`; ``tests/agents/test_agent_layers.py`` checks it).
"""

from __future__ import annotations

from collections.abc import Callable

from burako_env.agents.kernel_cache import install_dependency_cache_locator

# first, before any module of the package compiles or loads a kernel: the cache entries of
# the agents' kernels are stamped with the sources they call (agents/kernel_cache.py)
install_dependency_cache_locator()

from burako_env.agents.base import Agent, RandomAgent  # noqa: E402
from burako_env.agents.heuristic import (  # noqa: E402
    CompiledPolicyAgent,
    DiscardTableAgent,
    GreedyAgent,
    weighted_discard_table,
)

_REGISTRY: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "discard_table": DiscardTableAgent,
}
#: prefixes such as "ppo" whose factory takes the rest of the name: ``ppo:PATH``
_PREFIXES: dict[str, Callable[..., Agent]] = {}


def register_agent(name: str, factory: Callable[..., Agent], prefix: bool = False) -> None:
    """Add an agent factory; with ``prefix``, ``name:ARG`` calls ``factory(ARG, seed=..)``."""
    (_PREFIXES if prefix else _REGISTRY)[name] = factory


def agent_names() -> list[str]:
    """The names :func:`make_agent` knows, sorted, and its prefixes as ``prefix:...`` (``ppo:...``,
    ``pimc:...``)."""
    return sorted(_REGISTRY) + [f"{p}:..." for p in sorted(_PREFIXES)]


def make_agent(name: str, seed: int = 0, **kw) -> Agent:
    """An agent by name, seeded. Unknown names raise ValueError listing the known ones."""
    if name in _REGISTRY:
        agent = _REGISTRY[name](seed=seed, **kw)
    elif ":" in name and name.split(":", 1)[0] in _PREFIXES:
        prefix, arg = name.split(":", 1)
        agent = _PREFIXES[prefix](arg, seed=seed, **kw)
    else:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(agent_names())}")
    return agent


def _ppo_agent(
    path: str | None = None,
    seed: int = 0,
    greedy: bool = True,
    variant=None,
    num_players: int | None = None,
    **kw,
) -> Agent:
    """``ppo``: the shipped policy of the table it plays (``burako_env/data/
    ppo_<variant>_<players>p.pt``, picked when the agent learns the table: see
    :meth:`burako_env.agents.ppo_agent.PPOAgent.shipped`); ``ppo:PATH``: a checkpoint or policy file
    (burako_env.agents.ppo_agent, imported on first use: torch loads only then). With ``variant`` (a
    name or Variant) and/or ``num_players`` the table is checked now: a ValueError names
    the table and what ships (``ppo``) or both tables (``ppo:PATH``). Both play their most
    likely legal action unless ``greedy=False`` (then they sample)."""
    from burako_env.agents.ppo_agent import PPOAgent

    if path:
        agent = PPOAgent(path, seed=seed, greedy=greedy, **kw)
    else:
        agent = PPOAgent.shipped(seed=seed, greedy=greedy, **kw)
    if variant is not None or num_players is not None:
        from burako_env.variants import load_variant

        agent.check_table(load_variant(variant, num_players=num_players))
    return agent


def is_learned(name: str) -> bool:
    """A name of a learned agent (``ppo``, ``ppo:PATH``): one that takes ``greedy``."""
    return name == "ppo" or name.startswith("ppo:")


def _pimc_agent(settings: str = "", seed: int = 0, **kw) -> Agent:
    """``pimc``: perfect-information Monte Carlo search; ``pimc:k=64,rollout=greedy``
    with settings (burako_env.agents.pimc, imported on first use)."""
    from burako_env.agents.pimc import make_pimc

    return make_pimc(settings, seed=seed, **kw)


def _ppo_search_agent(settings: str = "", seed: int = 0, **kw) -> Agent:
    """``ppo_search``: the learned policy steering a PIMC search; ``ppo_search:k=48,top=4``
    with settings (burako_env.agents.policy_search, imported on first use: needs torch)."""
    from burako_env.agents.policy_search import make_policy_search

    return make_policy_search(settings, seed=seed, **kw)


def _openspiel_ismcts_agent(settings: str = "", seed: int = 0, **kw) -> Agent:
    """``openspiel_ismcts``: OpenSpiel's IS-MCTS bot; ``openspiel_ismcts:sims=100`` with
    settings (burako_env.agents.openspiel_ismcts, imported on first use; needs the
    ``openspiel`` extra)."""
    from burako_env.agents.openspiel_ismcts import make_openspiel_ismcts

    return make_openspiel_ismcts(settings, seed=seed, **kw)


register_agent("discard_table", weighted_discard_table, prefix=True)
register_agent("ppo", _ppo_agent)
register_agent("ppo", _ppo_agent, prefix=True)
register_agent("pimc", _pimc_agent)
register_agent("pimc", _pimc_agent, prefix=True)
register_agent("ppo_search", _ppo_search_agent)
register_agent("ppo_search", _ppo_search_agent, prefix=True)
register_agent("openspiel_ismcts", _openspiel_ismcts_agent)
register_agent("openspiel_ismcts", _openspiel_ismcts_agent, prefix=True)

__all__ = [
    "Agent",
    "CompiledPolicyAgent",
    "DiscardTableAgent",
    "GreedyAgent",
    "RandomAgent",
    "agent_names",
    "is_learned",
    "make_agent",
    "register_agent",
]
