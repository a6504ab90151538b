"""Self-play PPO training (installed as ``burako_env.training``; docs/TRAINING.md).

:mod:`~burako_env.training.config` reads and checks a run's YAML config,
:mod:`~burako_env.training.ppo` holds the trainer, :mod:`~burako_env.training.run` the
``burako train`` entry point; checkpoints, the league of opponents, the warm start by
imitation and the Ray rollout workers have a module each.
"""
