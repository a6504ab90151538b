"""Self-play PPO training (installed as ``burako_env.training``; docs/TRAINING.md).

:mod:`~burako_env.training.config` reads and checks a run's YAML config,
:mod:`~burako_env.training.ppo` holds the trainer (the algorithm),
:mod:`~burako_env.training.run` the ``burako train`` entry point; the trainer's threads
(:mod:`~burako_env.training.runtime`), its checkpoints
(:mod:`~burako_env.training.trainer_state`, on the files of
:mod:`~burako_env.training.checkpoint`), the league of opponents, the warm start by
imitation and the Ray rollout workers have a module each.
"""
