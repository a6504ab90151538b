"""The Gymnasium environments, thin adapters over the table (:mod:`burako_env.table`).

* :mod:`burako_env.gym.single`: the single-agent env ``Burako-v1``
  (:class:`~burako_env.gym.single.BurakoGymEnv`): a learner against opponent agents.
* :mod:`burako_env.gym.vector`: :class:`~burako_env.gym.vector.BurakoVectorEnv`,
  ``Burako-v1``'s Gymnasium vector env (``gymnasium.make_vec``): N learner games against
  opponents in compiled code, SAME_STEP autoreset.

They seat their opponents through the table's seating (:mod:`burako_env.table.seating`),
so they live above it; the PettingZoo env and the project's own
:class:`~burako_env.envs.vector.VectorEnv` stay in :mod:`burako_env.envs`, below it.
"""
