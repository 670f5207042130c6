"""The table layer: seats (human or bot), turn flow and saving, shared by the interfaces."""

from __future__ import annotations

from nomercy.tables.table import HUMAN, BotStep, SeatBot, Table, TableError

__all__ = ["HUMAN", "BotStep", "SeatBot", "Table", "TableError"]
