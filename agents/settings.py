"""The agents' settings: the one parser of the text after an agent's name.

``make_agent("pimc:k=64,rollout=greedy")``, ``"ppo_search:k=48,top=4"``,
``"openspiel_ismcts:sims=100"`` and ``"discard_table:cautious,go_out_margin=20"`` all
read their settings with :func:`parse_settings`: ``key=value`` pairs separated by
commas and, for an agent with presets (the weighted heuristics), a preset's name that
stands for its pairs (a later pair overrides it). Each agent then checks its values'
types and ranges itself. The registry (:mod:`burako_env.agents`) splits a name at its
first ``:``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def parse_settings(
    text: str,
    agent: str,
    keys: Iterable[str] | None,
    example: str,
    presets: Mapping[str, Mapping] | None = None,
    what: str = "setting",
    named: Iterable[str] | None = None,
) -> dict:
    """``"k=64,rollout=greedy"`` -> ``{"k": "64", "rollout": "greedy"}``: the settings of
    ``agent`` (values as given, as text). ``keys``: the keys it knows (None: the caller
    checks them); ``example``: the form to show in an error; ``presets``: names that stand
    for settings (their values kept as the preset gives them), which only an agent with
    presets accepts. Empty parts are skipped. A ValueError names the agent and what to
    fix: a part that is not ``key=value``, an unknown key or preset, a key given twice.
    ``named``: the keys an error lists where ``keys`` is None (the caller's check
    accepts more spellings than it lists)."""
    known = None if keys is None else list(keys)
    listed = known if known is not None else list(named or [])
    out: dict = {}
    given: set[str] = set()
    for raw in text.split(",") if text else []:
        part = raw.strip()
        if not part:  # "k=4," or "cautious,,x=1": nothing to read there
            continue
        if "=" not in part:
            if presets is None:
                raise ValueError(
                    f"{agent}: {what} {part!r} needs the form key=value "
                    f"(e.g. {example}); keys: {', '.join(listed)}"
                )
            if part not in presets:
                raise ValueError(
                    f"unknown {what} preset {part!r}; presets: {', '.join(presets)}, "
                    f"or name=value with a {what} of: {', '.join(listed)}"
                )
            out.update(presets[part])
            continue
        key, value = (t.strip() for t in part.split("=", 1))
        if known is not None and key not in known:
            raise ValueError(f"{agent}: unknown {what} {key!r}; {what}s: {', '.join(known)}")
        if key in given:
            raise ValueError(f"{agent}: {what} {key!r} given twice")
        given.add(key)
        out[key] = value
    return out


__all__ = ["parse_settings"]
