"""Test lanes: which tests carry the ``browser``, ``ray`` and ``slow`` markers (pytest.ini).

A test file may mark itself (``pytestmark = pytest.mark.slow``, or a decorator); the files and
tests below are assigned here instead, in one table, so that the lanes can be read and tuned in
one place without touching test files that other work is changing. ``tests/conftest.py`` applies
the table at collection (before ``-m`` selects); ``tests/test_lanes.py`` checks that every entry
still names a file and test that exist.

The default lane (``pytest``) leaves all three out and runs in about 18 minutes on 2 cores; ``.ci/run``
runs every lane. An entry is a path relative to the repository, a folder (ending in ``/``), a file,
or ``file::test`` (every parametrisation of that test function, or a ``Class::test``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: marker -> entries. Chosen with ``pytest --durations=0`` on the shared 2-core machine
#: (2026-11-27, load 2-3): every test of about 1 s or more there, except two quick checks of
#: structure (a page's error path, an import that must not pull in torch).
LANES: dict[str, tuple[str, ...]] = {
    # A real Chromium against a live `streamlit run` (Debian's /usr/bin/chromium).
    "browser": ("tests/browser/",),
    # A local Ray instance (minutes of start-up on a busy 2-core machine).
    "ray": ("tests/jobs/test_jobs_ray.py", "tests/mechanisms/test_cape_ray.py"),
    # Long statistical, end-to-end and fault-injection tests (seconds to minutes each).
    "slow": (
        # the CAPE sites in local worker processes (starts and stops two Python processes)
        "tests/mechanisms/test_cape_engine.py::test_the_local_engine_gives_the_inline_release_bit_for_bit_and_stops_its_workers",
        "tests/mechanisms/test_cape_center.py::test_inline_and_local_engines_give_the_same_dp_center_release_bit_for_bit",
        # the fault-injection suite's SIGKILL trials (one module fixture, minutes) and its
        # cancel / SIGTERM / time-limit checks inside a native call
        "tests/jobs/test_fault_injection.py::test_killed_workers_lose_nothing_and_record_nothing_twice",
        "tests/jobs/test_fault_injection.py::test_each_job_runs_exactly_once_with_several_workers",
        "tests/jobs/test_fault_injection.py::test_cancel_stops_a_job_inside_a_native_call_within_5_s",
        "tests/jobs/test_fault_injection.py::test_sigterm_hands_back_a_job_inside_a_native_call_within_5_s",
        "tests/jobs/test_fault_injection.py::test_time_limit_stops_a_job_inside_a_native_call_within_5_s",
        "tests/jobs/test_fault_injection.py::test_a_killed_worker_takes_its_jobs_process_with_it",
        # worker processes end to end (each imports torch, runs jobs, is stopped)
        "tests/jobs/test_jobs_experiment.py::test_end_to_end_sweep_on_digits",
        "tests/plugins/test_plugins.py::test_a_real_experiment_job_runs_the_toy_mechanism_on_the_toy_dataset",
        "tests/plugins/test_plugins.py::test_cli_help_and_choices_list_them",
        "tests/jobs/test_jobs_audit.py::test_audit_job_runs_through_the_store",
        "tests/jobs/test_jobs_audit.py::test_identical_audit_is_not_recomputed",
        "tests/jobs/test_jobs_limits.py::test_a_stalled_job_is_requeued_once_then_failed_while_its_process_lives",
        "tests/jobs/test_jobs_limits.py::test_cancel_reaches_a_job_without_checkpoints",
        "tests/jobs/test_jobs_limits.py::test_a_progressing_job_is_not_stalled",
        "tests/jobs/test_jobs_limits.py::test_sigterm_requeues_a_job_without_checkpoints_and_the_next_worker_finishes_it",
        "tests/jobs/test_jobs_worker.py::test_two_worker_processes_never_share_a_job",
        "tests/jobs/test_jobs_worker.py::test_sigkilled_worker_job_is_requeued_then_completed",
        "tests/cli/test_cli_faults.py::test_sweep_max_attempts_reaches_every_job",
        "tests/cli/test_generate_dp_merf.py::test_generate_dp_merf_writes_release_and_card",
        # pages that launch jobs and wait for a worker to finish them
        "tests/pages/test_privacy_accuracy.py::test_one_click_measures_an_unmeasured_setting",
        "tests/pages/test_compare_page.py::test_launch_runs_one_job_per_mechanism_and_run_and_shows_ours",
        "tests/pages/test_utility_page.py::test_launch_queues_a_sweep_and_starts_a_worker_then_shows_results",
        # three candidates measured (three releases) and the chosen one's report built
        "tests/pages/test_choose_page.py::test_three_candidates_side_by_side_then_a_report_of_the_chosen_one",
        # a dp-center candidate calibrated under composition, checked against a real release
        "tests/report/test_choice.py::test_a_dp_center_candidate_states_the_composed_epsilon_its_release_states",
        "tests/pages/test_utility_page.py::test_accuracy_versus_fixed_sigma_runs_and_draws_epsilon_on_a_second_axis",
        "tests/pages/test_page_tools.py::test_compare_tools_follow_the_form_then_the_selected_comparison",
        "tests/pages/test_page_tools.py::test_utility_tools_follow_the_form_then_the_selected_sweep",
        "tests/pages/test_sweep_resume_page.py::test_a_sweep_resumes_after_a_restart_and_its_page_shows_it",
        "tests/pages/test_privacy_audit.py::test_audit_section_launches_a_job_and_shows_the_result",
        # generated commands and scripts run in subprocesses
        "tests/dashboard/test_reproduce.py::test_compare_cli_and_script_run_every_mechanism",
        "tests/dashboard/test_reproduce.py::test_samples_cli_and_script_make_the_release_with_fresh_randomness",
        "tests/dashboard/test_reproduce.py::test_utility_cli_and_script_run_the_sweep",
        "tests/dashboard/test_reproduce.py::test_samples_fixed_sigma_and_denoise_are_in_the_code",
        # statistical checks over many draws
        "tests/randomness/test_noise.py::test_ndtri_is_as_accurate_as_the_proof_assumes",
        "tests/mechanisms/test_seed_attack.py::test_unseeded_release_matches_no_seed_and_its_noise_is_not_reproducible",
        "tests/mechanisms/test_seed_attack.py::test_seeded_release_is_found_reproducible_and_marked",
        "tests/data/test_data_upload.py::test_deflated_zeros_are_refused_by_declared_size_not_compressed_size",
        "tests/pages/test_samples_fidelity.py::test_adult_categorical_marginals_within_tv_or_warned",
        "tests/pages/test_samples_page.py::test_mosaic_draws_a_cell_per_l_and_epsilon_when_asked",
        "tests/randomness/test_mechanism_noise.py::test_dp_merf_embedding_and_count_noise",
        "tests/evaluation/audit/test_audit_run.py::test_lower_bound_never_exceeds_a_valid_upper_bound",
        # reference accountants and property tests at their most expensive settings
        "tests/privacy/test_pld.py::test_directions_agree_with_dp_accounting",
        "tests/privacy/test_properties.py::test_calibration_never_overshoots_and_is_monotone",
        "tests/dashboard/test_reproduce.py::test_privacy_cli_and_script_give_the_pages_epsilon",
        # more worker processes, time limits, a hanging browser stopped
        "tests/jobs/test_jobs_dp_merf.py::test_dp_merf_at_infinite_epsilon_runs_without_noise",
        "tests/jobs/test_jobs_worker.py::test_ensure_worker_starts_one_background_worker",
        "tests/jobs/test_jobs_limits.py::test_a_job_without_checkpoints_is_interrupted_at_its_time_limit",
        "tests/jobs/test_jobs_limits.py::test_cli_time_limit_and_jobs_listing",
        "tests/jobs/test_jobs_limits.py::test_a_job_past_its_time_limit_fails_with_that_reason",
        "tests/jobs/test_fault_injection.py::test_damage_in_the_middle_of_the_store_stops_every_writer",
        "tests/report/test_pdf.py::test_a_hanging_browser_is_stopped_with_its_helpers",
        # the baselines table checked against every dataset present (loads MNIST-sized files)
        "tests/evaluation/test_baselines.py::test_shipped_table_matches_the_data_where_present",
    ),
}


def _matches(nodeid: str, entry: str) -> bool:
    if entry.endswith("/"):
        return nodeid.startswith(entry)
    if "::" not in entry:
        return nodeid.split("::", 1)[0] == entry
    base = nodeid.split("[", 1)[0]
    return base == entry or base.startswith(entry + "::")


def assign_lanes(items) -> None:
    """Add each table marker to the collected items it names."""
    for item in items:
        nodeid = item.nodeid
        for marker, entries in LANES.items():
            if any(_matches(nodeid, e) for e in entries):
                item.add_marker(getattr(pytest.mark, marker))
