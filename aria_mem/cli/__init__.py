"""The command-line interface: Typer commands, with Rich rendering kept in ``render``."""
