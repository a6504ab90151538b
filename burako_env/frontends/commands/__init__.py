"""The commands of ``burako``, one module each; :mod:`burako_env.frontends.cli` assembles
them into the typer app. :mod:`burako_env.frontends.commands.common` holds what they share
(the error contract, bounds, the check of an output file) and
:mod:`burako_env.frontends.commands.options` the options several take alike."""
