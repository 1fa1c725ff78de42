"""Experiments: one run (data -> mechanism -> learner -> accuracy), sweeps over a grid, the
comparison of mechanisms at equal epsilon, the privacy-utility frontier and time estimates.

``run`` and ``audit_job`` register the job kinds the workers of :mod:`dpcda.jobs` run (the job
queue names them by module, so it never imports this package).
"""

from dpcda.experiments.sweep import list_sweeps, submit_sweep, sweep_results

__all__ = ["list_sweeps", "submit_sweep", "sweep_results"]
