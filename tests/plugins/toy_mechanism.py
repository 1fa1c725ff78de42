"""A toy mechanism in one file: loaded through ``DPCDA_PLUGINS=tests.plugins.toy_mechanism``.

"Pairs": every synthetic record is the mean of two random records of one class plus Gaussian
noise, i.e. DP-CDA's Algorithm 1 at l = 2. It emits DP-CDA's accounting event (class mixtures
under the class-aware relation), so the class-aware accountants support it and its default
accountant is a valid bound; it declares its parameters, defaults and cost model here, and
nothing else in dpcda names it.
"""

from __future__ import annotations

from dpcda.mechanisms import generate_dpcda
from dpcda.mechanisms.spec import (CLIP_PARAM, Mechanism, noise_params, norm_param,
                                   register_mechanism)
from dpcda.privacy import CLASS_MIXTURE

ACCOUNTANTS = ("class-aware-pld", "class-aware", "paper")


def generate_pairs(X, y, *, T=None, epsilon=None, sigma_x=None, sigma_y=None, delta=1e-5,
                   ratio=1.0, accountant=ACCOUNTANTS[0], conversion="mironov", max_alpha=256,
                   c=1.0, normalize="scale", bounds=None, dataset=None, class_names=None,
                   image_shape=None, device=None):
    """Means of 2 records of one class plus noise (``generate_dpcda`` at ``l = 2``)."""
    return generate_dpcda(X, y, l=2, T=T if T is not None else len(y), epsilon=epsilon,
                          sigma_x=sigma_x, sigma_y=sigma_y, delta=delta, ratio=ratio,
                          accountant=accountant, conversion=conversion, max_alpha=max_alpha, c=c,
                          normalize=normalize, bounds=bounds, dataset=dataset,
                          class_names=class_names, image_shape=image_shape, device=device,
                          compare_accountants=False)


MECHANISM = register_mechanism(Mechanism(
    "toy-pairs", "Toy pairs (plugin)", generate_pairs,
    "Mean of 2 random points of one class plus Gaussian noise (DP-CDA at l = 2).",
    (*noise_params(ACCOUNTANTS), CLIP_PARAM, norm_param("scale", ("scale", "none"))),
    ACCOUNTANTS, "scale", label_mode="hard", learner="auto", l_bound="class",
    onehot_label_noise=True, event=CLASS_MIXTURE, cost_model="mixing"))
