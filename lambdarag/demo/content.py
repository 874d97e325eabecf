"""The demo domain's documents: a fictional university finance office (江城大学财务处)."""

from __future__ import annotations

from .content_data import ANNUAL_REPORT, STATISTICS, TUITION_FEES
from .content_decks import RESEARCH_DECK, TRAINING
from .content_model import Block, Bullets, Cell, Document, Fmt, Section, Sheet, Steps, Table
from .content_notices import HALL_FAQ, TAX_GUIDE, YEAR_END_NOTICE
from .content_office import CONTACTS, OVERVIEW
from .content_process import LOAN_PROCESS, TRAVEL_PROCESS, TUITION_DEFERRAL
from .content_rules import BUDGET_RULES, HORIZONTAL_RULES, REPEAL_NOTICE
from .content_travel import TRAVEL_2021, TRAVEL_2024

__all__ = [
    "DOCUMENTS",
    "Block",
    "Bullets",
    "Cell",
    "Document",
    "Fmt",
    "Section",
    "Sheet",
    "Steps",
    "Table",
]

DOCUMENTS: tuple[Document, ...] = (
    OVERVIEW,
    CONTACTS,
    TRAVEL_2021,
    TRAVEL_2024,
    TRAVEL_PROCESS,
    LOAN_PROCESS,
    TUITION_DEFERRAL,
    TUITION_FEES,
    RESEARCH_DECK,
    TRAINING,
    YEAR_END_NOTICE,
    BUDGET_RULES,
    HORIZONTAL_RULES,
    STATISTICS,
    ANNUAL_REPORT,
    TAX_GUIDE,
    REPEAL_NOTICE,
    HALL_FAQ,
)
