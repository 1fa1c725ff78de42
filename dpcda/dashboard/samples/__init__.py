"""What the Samples page computes, as plain functions (no Streamlit): the pictures of a release
(:mod:`.pictures`), the l x epsilon mosaic (:mod:`.mosaic`), whether samples are legible
(:mod:`.legibility`), how long a release takes (:mod:`.cost`), the setting's noise and names
(:mod:`.setting`) and the download files (:mod:`.downloads`)."""

from dpcda.dashboard.samples.cost import FAST_SECONDS, estimate_release_seconds, is_quick
from dpcda.dashboard.samples.layout import picture_columns
from dpcda.dashboard.samples.preview import preview_pictures, preview_text, release_preprocessor
from dpcda.dashboard.samples.legibility import (SCORE_MIN, Legibility, legibility_hint, legibility_score,
                                      legible_sigma, smallest_legible_l, unrecognisable)
from dpcda.dashboard.samples.mosaic import (MOSAIC_EPS, MOSAIC_L, MosaicCell, class_table, mosaic_axes,
                                            mosaic_cells,
                                  mosaic_sigmas, mosaic_sigmas_at, solve_sigma)
from dpcda.report.pictures import (SamplePictures, class_means, denoise_means, public_floor,
                                    sample_pictures, smoothing_px)
from dpcda.dashboard.samples.setting import (T_CAP, Noise, card_noise, default_T,
                                    generate_release, noise_for, quick_epsilon, stats_mu_for,
                                    parse_image_shape, release_stem, report_settings,
                                    setting_text)
from dpcda.dashboard.samples.sizes import (accounting_facts, bounds_failure, hint_limit,
                                           histogram_refusal_text, histogram_serves, l_limit,
                                           l_lowered_text, l_refusal,
                                           mosaic_facts, mosaic_rows, pending_text, public_bounds,
                                           Refused, refused_histogram, setting_notices, sizes_private)

__all__ = [
    "accounting_facts", "bounds_failure", "card_noise", "hint_limit", "histogram_refusal_text",
    "histogram_serves", "l_limit", "l_lowered_text", "l_refusal", "mosaic_facts", "mosaic_rows",
    "pending_text", "public_bounds", "Refused", "refused_histogram", "setting_notices", "sizes_private",
    "FAST_SECONDS", "Legibility", "MOSAIC_EPS", "MOSAIC_L", "MosaicCell", "Noise", "SCORE_MIN",
    "SamplePictures", "T_CAP", "class_means", "class_table", "default_T", "denoise_means",
    "estimate_release_seconds", "generate_release", "is_quick", "legibility_hint",
    "legibility_score", "legible_sigma", "mosaic_axes", "mosaic_cells", "mosaic_sigmas", "mosaic_sigmas_at",
    "noise_for", "parse_image_shape", "picture_columns", "preview_pictures", "preview_text",
    "release_preprocessor", "stats_mu_for", "public_floor", "quick_epsilon", "release_stem",
    "report_settings", "sample_pictures", "setting_text", "smallest_legible_l", "smoothing_px",
    "solve_sigma", "unrecognisable"]
