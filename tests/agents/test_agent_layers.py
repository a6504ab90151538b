"""The agents' layer and the shipped policies: nothing in agents/ imports training/ (the
network and the policy file are the agent's), training's old import paths still work,
and ``make_agent("ppo")`` plays the shipped policy of its table or says none ships."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from burako_env.agents import make_agent
from burako_env.agents.ppo_agent import PPOAgent, pretrained_path, shipped_policies, shipped_policy
from burako_env.core.constants import NUM_ACTIONS, obs_layout
from burako_env.core.game import Game
from burako_env.envs.vector import VectorEnv
from burako_env.frontends.cli import app
from burako_env.variants import load_variant

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = pytest.mark.skipif(not pretrained_path().is_file(), reason="no pretrained policy")
#: a table that no policy ships for (the shipped ones are 4-player): the refusals' example
NONE_SHIPS = ("argentine", 2)


# ------------------------------------------------------------------ agents never import training
def training_imports(source: str) -> list[tuple[int, str]]:
    """``(line, statement)`` of every import of ``training`` in a module's source: plain
    and ``from`` imports anywhere (inside functions too), relative imports that climb
    out of the package, and ``importlib.import_module`` / ``__import__`` of a literal."""
    found = []

    def is_training(module: str | None) -> bool:
        return module is not None and any(
            module == top or module.startswith(top + ".")
            for top in ("training", "burako_env.training")
        )

    for node in ast.walk(ast.parse(source)):
        hit = False
        if isinstance(node, ast.Import):
            hit = any(is_training(a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                hit = is_training(node.module)
            elif node.level >= 2:  # from .. import training / from ..training import x
                hit = is_training(node.module) or (
                    node.module is None and any(a.name == "training" for a in node.names)
                )
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            arg = node.args[0]
            hit = (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
                and is_training(arg.value)
            )
        if hit:
            found.append((node.lineno, ast.get_source_segment(source, node) or ""))
    return sorted(found)


def test_no_module_of_agents_imports_training():
    """training/ builds on agents/; the other way round would be a circle."""
    offenders = []
    for path in sorted((ROOT / "agents").rglob("*.py")):
        for line, text in training_imports(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert offenders == [], "agents/ imports training/:\n" + "\n".join(offenders)


def test_the_scan_finds_every_form_of_import():
    source = (
        "import numpy\n"
        "from burako_env.agents.network import BurakoNet\n"
        "def f():\n"
        "    from burako_env.training.checkpoint import load_network\n"
        "import burako_env.training.ppo as ppo\n"
        "from .. import training\n"
        "import importlib\n"
        "importlib.import_module('burako_env.training.network')\n"
        "from ..training.league import League\n"
        "import trainingwheels\n"
        "import training.ppo\n"  # the top-level name of before 0.3.0
        "from burako_env.trainingwheels import x\n"
    )
    assert [line for line, _ in training_imports(source)] == [4, 5, 6, 8, 9, 11]
    assert "burako_env.training.checkpoint" in training_imports(source)[0][1]


def test_training_import_paths_still_work():
    from burako_env.agents import network, policy_file
    from burako_env.training import checkpoint
    from burako_env.training import network as training_network

    assert training_network.BurakoNet is network.BurakoNet
    assert training_network.legal_lists is network.legal_lists
    assert checkpoint.CheckpointError is policy_file.CheckpointError
    assert checkpoint.load_network is policy_file.load_network
    assert checkpoint.check_policy_table is policy_file.check_policy_table


# ------------------------------------------------------------------ shipped policies
def test_shipped_policy_finds_the_argentine_file_and_names_what_ships():
    assert pretrained_path().name == "ppo_argentine_4p.pt"
    if pretrained_path().is_file():
        assert shipped_policy("argentine", 4) == pretrained_path()
        assert shipped_policy("argentine") == pretrained_path()  # its own count: 4
        assert shipped_policy(load_variant("argentine")) == pretrained_path()
        assert ("argentine", 4) in shipped_policies()
    with pytest.raises(ValueError) as info:
        shipped_policy(*NONE_SHIPS)
    text = str(info.value)
    assert "no shipped PPO policy for argentine, 2 players" in text
    if pretrained_path().is_file():
        assert "argentine, 4 players (ppo_argentine_4p.pt)" in text
    assert "Train one with `burako train --config argentine --set env.num_players=2`" in text


def test_the_train_command_names_a_variants_own_config_or_the_default():
    from burako_env.agents.ppo_agent import train_command

    assert train_command("colombian", 4) == "burako train --config colombian"
    assert train_command("brazilian", 2) == (
        "burako train --config brazilian --set env.num_players=2"
    )
    # a house-rule variant has no config of its own: the argentine recipe, pointed at it
    assert train_command("my_rules", 6) == (
        "burako train --config argentine --set env.variant=my_rules --set env.num_players=6"
    )


def _play_legal_hand(agent, game: Game, max_steps: int = 5000) -> None:
    """``agent`` plays every seat of ``game`` to the end of the hand, each move legal."""
    for _ in range(max_steps):
        if game.is_over():
            break
        action = agent.act_game(game)
        assert game.legal_action_mask()[0, action]
        game.step_one(action)
    assert game.is_over()


@SHIPPED
def test_ppo_plays_the_shipped_file_on_4p_argentine_as_before():
    """make_agent("ppo") on 4-player argentine is the shipped file played argmax: the
    same actions as the file loaded by path, and a whole hand of legal moves."""
    env = VectorEnv("argentine", 4, num_envs=8, seed=0)
    obs, mask, _ = env.reset()
    by_name = make_agent("ppo", seed=3)
    by_path = PPOAgent(pretrained_path(), greedy=True, seed=3)
    sampled = [make_agent("ppo", seed=3, greedy=False), PPOAgent(pretrained_path(), seed=3)]
    for _ in range(12):
        a = by_name.act(obs, mask)
        assert mask[np.arange(8), a].all()
        assert (a == by_path.act(obs, mask)).all()
        assert (sampled[0].act(obs, mask) == sampled[1].act(obs, mask)).all()
        obs, mask, _ = env.step(a)
    assert by_name.checkpoint_path == str(pretrained_path())
    assert by_name.info["variant"]["name"] == "argentine"

    agent = make_agent("ppo", seed=1)
    _play_legal_hand(agent, Game("argentine", num_players=4, seed=5))
    assert agent.checkpoint_path == str(pretrained_path())


@pytest.mark.parametrize("table", sorted(shipped_policies()), ids=lambda t: f"{t[0]}_{t[1]}p")
def test_every_shipped_policy_plays_a_legal_hand_at_its_table_only(table):
    """Each shipped file, whatever its variant, plays a whole hand of legal moves on every
    seat of its own table, needs no heuristic there (the shipped recipe is hint-free),
    and refuses another variant's table naming both."""
    variant, players = table
    agent = make_agent("ppo", variant=variant, num_players=players, seed=1)
    assert agent.checkpoint_path == str(shipped_policy(variant, players))
    assert agent.net.hint_policy is None  # the observation alone: no heuristic at play
    _play_legal_hand(agent, Game(variant, num_players=players, seed=7))
    other = "italian" if variant != "italian" else "argentine"
    fixed = PPOAgent(shipped_policy(variant, players), greedy=True)
    with pytest.raises(ValueError) as info:
        fixed.check_table(load_variant(other))
    assert f"trained for {variant}" in str(info.value) and f"play {other}" in str(info.value)


def test_ppo_refuses_a_table_without_a_shipped_policy():
    variant, players = NONE_SHIPS

    def says_none_ships(exc_info) -> None:
        text = str(exc_info.value)
        assert "no shipped PPO policy for argentine, 2 players" in text, text
        assert "`burako train --config argentine --set env.num_players=2`" in text

    with pytest.raises(ValueError) as info:
        make_agent("ppo", variant=variant, num_players=players)
    says_none_ships(info)
    agent = make_agent("ppo")
    game = Game(variant, num_players=players)
    with pytest.raises(ValueError) as info:
        agent.check_table(game.variant)
    says_none_ships(info)
    with pytest.raises(ValueError) as info:
        agent.act_game(game)
    says_none_ships(info)
    with pytest.raises(ValueError) as info:  # from the observation's own variant block
        agent.act(game.observe_one(0)[None], game.legal_action_mask())
    says_none_ships(info)
    assert agent.net is None and agent.info == {}  # refused: nothing loaded, nothing bound

    result = CliRunner().invoke(
        app, ["tournament", "ppo", "greedy", "--variant", variant, "-p", "2", "--hands", "2"]
    )
    assert result.exit_code == 2, result.output
    assert "error: agent 'ppo': no shipped PPO policy for argentine, 2 players" in result.output


def _tiny_policy(variant, path: Path) -> Path:
    import torch

    from burako_env.agents.network import BurakoNet
    from burako_env.training.checkpoint import policy_dict, save_file

    torch.manual_seed(0)
    size = obs_layout(variant.num_players, variant.total_cards).size
    net = BurakoNet(variant.num_players, variant.total_cards, hidden=16, encoder=8, meld_dim=4)
    save_file(policy_dict(net, variant, size), path)
    return path


def test_a_policy_of_one_variant_refuses_another_table(tmp_path):
    italian = _tiny_policy(load_variant("italian"), tmp_path / "italian.pt")
    assert make_agent(f"ppo:{italian}", variant="italian").checkpoint_path == str(italian)
    with pytest.raises(ValueError) as info:
        make_agent(f"ppo:{italian}", variant="brazilian", num_players=4)
    text = str(info.value)
    assert f"trained for italian, 4 players, {NUM_ACTIONS} actions" in text, text
    assert f"cannot play brazilian, 4 players, {NUM_ACTIONS} actions" in text, text
    with pytest.raises(ValueError, match="player count 4 here 2"):
        make_agent(f"ppo:{italian}", variant="italian", num_players=2)


def test_a_policy_path_with_a_colon_is_one_path(tmp_path):
    """``ppo:<path>`` splits at its first colon only: a run folder named with a time
    (``run-12:30``) or a Windows drive (``C:\\...``) is still one path."""
    folder = tmp_path / "run-12:30"
    folder.mkdir()
    policy = _tiny_policy(load_variant("italian"), folder / "italian.pt")
    agent = make_agent(f"ppo:{policy}", variant="italian")
    assert agent.checkpoint_path == str(policy)


def test_a_torch_file_of_something_else_is_refused_naming_it(tmp_path):
    """A torch file that is no burako checkpoint (another project's weights) is refused
    by its path, before anything of it is read as a policy."""
    import torch

    from burako_env.agents.policy_file import CheckpointError, load_file

    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": torch.zeros(2)}, foreign)
    with pytest.raises(CheckpointError) as info:
        load_file(foreign)
    assert str(info.value) == f"{str(foreign)!r} is not a burako PPO checkpoint"


def test_a_policy_file_where_a_training_checkpoint_is_needed_says_which_kind_it_is(tmp_path):
    from burako_env.agents.policy_file import CheckpointError, load_file

    policy = _tiny_policy(load_variant("italian"), tmp_path / "italian.pt")
    assert load_file(policy, kind="policy")["kind"] == "policy"
    with pytest.raises(CheckpointError) as info:
        load_file(policy, kind="train")
    assert "is a policy file; a train checkpoint is needed" in str(info.value)


def test_a_description_holding_a_tensor_is_refused_before_the_network_is_built(tmp_path):
    """A file's ``spec`` and ``variant`` are read as plain values (formatted into messages,
    compared): a tensor among them, under a plain key, makes the file corrupted."""
    import torch

    from burako_env.agents.policy_file import CheckpointError, load_file

    policy = _tiny_policy(load_variant("italian"), tmp_path / "italian.pt")
    data = torch.load(policy, weights_only=True)
    data["spec"]["hidden"] = torch.tensor(16)
    bad = tmp_path / "bad.pt"
    torch.save(data, bad)
    with pytest.raises(CheckpointError, match="its 'spec' is not a mapping of plain values"):
        load_file(bad)


def test_ppo_picks_the_shipped_file_of_each_table(tmp_path, monkeypatch):
    """With policies shipped for two tables, make_agent("ppo") plays the one of the table
    it is at, whichever way it learns the table; a shipped file recording another table
    than its name says is refused, naming both."""
    import burako_env.agents.ppo_agent as ppo_agent

    italian = load_variant("italian")
    _tiny_policy(italian, tmp_path / "ppo_italian_4p.pt")
    _tiny_policy(italian, tmp_path / "ppo_brazilian_4p.pt")  # misnamed: records italian
    if pretrained_path().is_file():
        shutil.copy(pretrained_path(), tmp_path / pretrained_path().name)
    monkeypatch.setattr(ppo_agent, "shipped_dir", lambda: tmp_path)

    agent = make_agent("ppo", seed=2)
    game = Game("italian", num_players=4, seed=1)
    action = agent.act(game.observe_one(0)[None], game.legal_action_mask())[0]
    assert game.legal_action_mask()[0, action]
    assert agent.checkpoint_path == str(tmp_path / "ppo_italian_4p.pt")
    assert make_agent("ppo", variant="italian").checkpoint_path == agent.checkpoint_path
    if pretrained_path().is_file():  # the same agent moves to another table
        agent.check_table(load_variant("argentine"))
        assert agent.checkpoint_path == str(tmp_path / pretrained_path().name)
        agent.act_game(game)
        assert agent.checkpoint_path == str(tmp_path / "ppo_italian_4p.pt")
    with pytest.raises(ValueError) as info:
        agent.check_table(load_variant("brazilian"))
    assert "trained for italian" in str(info.value) and "play brazilian" in str(info.value)
    assert agent.checkpoint_path == str(tmp_path / "ppo_italian_4p.pt")  # left as it was


def test_a_training_config_with_ppo_needs_a_shipped_policy_for_its_table():
    from burako_env.training.config import ConfigError, load_config

    tiny = ROOT / "configs" / "train" / "tiny.yaml"
    with pytest.raises(ConfigError) as info:
        load_config(tiny, ["env.num_players=2", "eval.opponents=[random, ppo]"])
    text = str(info.value)
    assert "'eval.opponents'" in text and "agent 'ppo' cannot play" in text, text
    assert "no shipped PPO policy for argentine, 2 players" in text, text
    if pretrained_path().is_file():
        cfg = load_config(tiny, ["eval.opponents=[random, ppo]"])
        assert cfg.eval.opponents == ["random", "ppo"]
