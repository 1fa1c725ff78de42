"""Privacy accounting for DP-CDA: Rényi-DP accountants, conversions, calibration.

Pure numpy/scipy; importing this package never imports torch.

>>> from dpcda.privacy import PrivacyParams, compute_epsilon
>>> p = PrivacyParams(l=4, sigma_x=0.5, sigma_y=0.5, c=1.0, T=60000, n=60000, delta=1e-5)
>>> r = compute_epsilon(p, accountant="paper")   # r.epsilon, r.alpha, r.rdp, r.warnings
"""

from dpcda.privacy.accountants import (ACCOUNTANTS, DEFAULT_ACCOUNTANT, NOT_A_BOUND,
                                       Accountant, EpsilonResult, compute_epsilon,
                                       get_accountant, list_accountants, register_accountant)
from dpcda.privacy import whole_record_accountant  # noqa: F401  (registers "whole-record")
from dpcda.privacy.allocation import ALLOCATIONS, samples_per_class
from dpcda.privacy.calibration import Calibration, calibrate, calibrate_on_curve, epsilon_grid
from dpcda.privacy.events import CLASS_MIXTURE, EVENTS, KINDS, Relation, ReleaseEvent, event_of
from dpcda.privacy.conversion import CONVERSION_TITLES, epsilon_floor, list_conversions
from dpcda.privacy.params import PrivacyParams
from dpcda.privacy.rdp import log_b_even, rdp_subsampled_gaussian
from dpcda.privacy.validity import (PAPER_CHOICE, caveat, choice_label, compared_accountants,
                                    default_accountant, dpcda_accountants, epsilon_note,
                                    is_bound_for)

#: name -> Accountant (``.title``, ``.assumptions`` markdown) for every registered accountant.
ACCOUNTANT_INFO = ACCOUNTANTS

__all__ = [
    "ACCOUNTANTS", "ACCOUNTANT_INFO", "ALLOCATIONS", "DEFAULT_ACCOUNTANT", "NOT_A_BOUND", "Accountant",
    "Calibration", "CONVERSION_TITLES",
    "EpsilonResult", "PrivacyParams", "calibrate", "calibrate_on_curve", "compute_epsilon", "epsilon_floor",
    "epsilon_grid", "get_accountant", "list_accountants", "list_conversions", "log_b_even",
    "rdp_subsampled_gaussian", "register_accountant", "samples_per_class",
    "PAPER_CHOICE", "caveat", "choice_label", "compared_accountants", "default_accountant",
    "dpcda_accountants", "epsilon_note", "is_bound_for",
    "CLASS_MIXTURE", "EVENTS", "KINDS", "Relation", "ReleaseEvent", "event_of",
]
