"""Reference values of the inverse normal CDF, shipped so that scipy's ``ndtri`` can be checked
at run time against the bound the noise's floating-point proof uses
(:func:`dpcda.randomness.noise.check_ndtri`; docs/security.md, "How Z is drawn")."""

from __future__ import annotations

#: ``(p, hi, lo)`` (float64 hex): ``hi + lo`` is ``Phi^-1(p)`` to about 32 digits (a double-double
#: computed with mpmath at 130 digits as ``-sqrt(2) erfinv(1 - 2p)``). The points: the 2^-192 end
#: of the sampler, 30 log-spaced from 2e-58 to 0.49, the 24 worst of a 8,500-point scan of scipy
#: 1.17 (densest around p = 0.137) and the reviewer's two peaks.
#: :func:`dpcda.randomness.noise.check_ndtri` compares
#: scipy's ``ndtri`` against them once per process, before the first noise is drawn.
NDTRI_REFERENCE = (
    ("0x1.0000000000000p-192", "-0x1.01613b34bc7dfp+4", "-0x1.7c94a62aff1f4p-50"),
    ("0x1.40a054afda86ap-192", "-0x1.01281bfc02a80p+4", "-0x1.3ed3da18ba33dp-53"),
    ("0x1.dd4ccd055d8efp-186", "-0x1.f93202e32adcdp+3", "0x1.b5c3a8ac30670p-53"),
    ("0x1.63441df2756fbp-179", "-0x1.efe93ccae0aa5p+3", "0x1.bdaa3eef725d1p-51"),
    ("0x1.086ee92e0a1d5p-172", "-0x1.e6737c93bbf25p+3", "0x1.262c20e910969p-51"),
    ("0x1.89a5f5c9825b5p-166", "-0x1.dcce1cb27c0f4p+3", "-0x1.0a354344d0be9p-53"),
    ("0x1.250086cb480e2p-159", "-0x1.d2f6328ea0da8p+3", "-0x1.b34753aff8f1fp-51"),
    ("0x1.b42d5ddc24badp-153", "-0x1.c8e8844002df9p+3", "0x1.0aad6049692c0p-53"),
    ("0x1.44a84a3484992p-146", "-0x1.bea17c40ec470p+3", "-0x1.0b5d474830419p-51"),
    ("0x1.e34d0691aa177p-140", "-0x1.b41d1a8f590d2p+3", "0x1.f92e20f9ede8fp-52"),
    ("0x1.67bb91149ace4p-133", "-0x1.a956e28df3567p+3", "-0x1.a8aa7d8354d26p-51"),
    ("0x1.0bc2022d52267p-126", "-0x1.9e49c4bb38884p+3", "-0x1.153868019c8aap-51"),
    ("0x1.8e98f21c996efp-120", "-0x1.92f003039d1bep+3", "0x1.aa88890d669f0p-52"),
    ("0x1.28af933212122p-113", "-0x1.87430dff328cfp+3", "-0x1.ecbad6ea21203p-52"),
    ("0x1.b9a93c1843b72p-107", "-0x1.7b3b58c281a26p+3", "-0x1.fef52e8a7dad6p-52"),
    ("0x1.48bd39289ffe7p-100", "-0x1.6ed01ff06d617p+3", "0x1.a7ca2e054cdb8p-51"),
    ("0x1.e96090917fb5bp-94", "-0x1.61f71f40eeef4p+3", "-0x1.3f32a5bc97d50p-51"),
    ("0x1.6c41647d756edp-87", "-0x1.54a42e6664181p+3", "0x1.41dd0d69f83afp-54"),
    ("0x1.0f1fce7e72cc5p-80", "-0x1.46c8ba94f9903p+3", "0x1.e2ef25396d707p-54"),
    ("0x1.939bdc52607e6p-74", "-0x1.38530bef0cce9p+3", "-0x1.cf27195880897p-51"),
    ("0x1.2c6a7addfddc1p-67", "-0x1.292d3bdc8f543p+3", "0x1.a983e581b39f5p-51"),
    ("0x1.0000000000000p-64", "-0x1.2290a17afe0c0p+3", "0x1.342c5bf1c2afep-51"),
    ("0x1.bf36c0c802f4ap-61", "-0x1.193baf1dd69e6p+3", "-0x1.6fd1df30f3778p-53"),
    ("0x1.4cdf4b4e74aeap-54", "-0x1.085ac46264850p+3", "-0x1.b0ded1a3620e9p-51"),
    ("0x1.ef87a92ef1f33p-48", "-0x1.ecb64965e2e98p+2", "0x1.7283939e01f20p-52"),
    ("0x1.70d5c67241f69p-41", "-0x1.c5f726649656fp+2", "-0x1.76ab506ee6edap-52"),
    ("0x1.128870921f2e7p-34", "-0x1.9bbb94911421ap+2", "0x1.4df67983d5f36p-53"),
    ("0x1.98aee7afd03bdp-28", "-0x1.6ce1091b76645p+2", "-0x1.b2a0f72348e70p-53"),
    ("0x1.303163f84840bp-21", "-0x1.377c7ae693dcdp+2", "-0x1.1f2cdf8bf71fap-56"),
    ("0x1.c4d624ba59a7dp-15", "-0x1.ef9c506d28b88p+1", "-0x1.dcb57b4bcd4bcp-53"),
    ("0x1.510eaaeeb22c2p-8", "-0x1.487493eee9531p+1", "0x1.eb2a06d5572b6p-53"),
    ("0x1.0000000000000p-3", "-0x1.267d4c07b0567p+0", "-0x1.950d2b7795f1ap-54"),
    ("0x1.159bed3c37537p-3", "-0x1.19bc21229b3eap+0", "0x1.682a89cfca267p-56"),
    ("0x1.15d505d831a53p-3", "-0x1.199b5bcf62d03p+0", "-0x1.ad9f3ec640aebp-54"),
    ("0x1.1675c538af6fep-3", "-0x1.193f316192b05p+0", "0x1.f2c61135b2734p-55"),
    ("0x1.16d9e88162854p-3", "-0x1.1905d99f32389p+0", "0x1.be412ce057872p-54"),
    ("0x1.170dbbe3a441bp-3", "-0x1.18e831bc9a592p+0", "-0x1.ec31438f2e5ddp-54"),
    ("0x1.171bc9d2e5cffp-3", "-0x1.18e02791f096cp+0", "0x1.004bb209469c2p-54"),
    ("0x1.172f1cfbdff37p-3", "-0x1.18d51a0b0d67ep+0", "-0x1.53a75938132eep-55"),
    ("0x1.178fbcc8c2a54p-3", "-0x1.189dde4112dcep+0", "-0x1.cc0443d31fe30p-54"),
    ("0x1.1836a241ed1e3p-3", "-0x1.183e95b3d3d18p+0", "0x1.41a026ea7fad0p-54"),
    ("0x1.188a7e06aed63p-3", "-0x1.180ec41ab6916p+0", "-0x1.7a5897bde1ea5p-55"),
    ("0x1.18b51fab3b1e3p-3", "-0x1.17f6788bd6f3bp+0", "-0x1.d96d9fc4a4f52p-54"),
    ("0x1.19757e660c68ep-3", "-0x1.1788f6b68472ap+0", "-0x1.bdf99d625fb57p-54"),
    ("0x1.197ba47eb9172p-3", "-0x1.1785777f70eefp+0", "-0x1.ca195a9e55eb1p-54"),
    ("0x1.19bca4f14848ep-3", "-0x1.176082fbac477p+0", "0x1.35f5e83cf5f46p-55"),
    ("0x1.1a45acce07739p-3", "-0x1.1712ae3e8b50ep+0", "0x1.894477f90faa7p-54"),
    ("0x1.1bd7fbaebbfacp-3", "-0x1.162ec1bfadee1p+0", "-0x1.8da06a90d4c46p-54"),
    ("0x1.1cc4333aacf1bp-3", "-0x1.15a954af5c727p+0", "-0x1.e00e07bbb0a2bp-56"),
    ("0x1.1d44851c7053bp-3", "-0x1.1560f929960bbp+0", "-0x1.b5e7923e172fap-54"),
    ("0x1.1e5775b4e2c1fp-3", "-0x1.14c63ad5ab79fp+0", "-0x1.a58109deba71bp-54"),
    ("0x1.1e9e9c401ea1fp-3", "-0x1.149e3fa9a1045p+0", "-0x1.2ce027ede4778p-56"),
    ("0x1.1f627e76c0503p-3", "-0x1.143050252e7f9p+0", "0x1.8341207629484p-54"),
    ("0x1.1f99d554d2703p-3", "-0x1.14114a820b98ep+0", "0x1.5b9424e38e540p-54"),
    ("0x1.1fd9140979703p-3", "-0x1.13eddb4fef1c3p+0", "-0x1.7102e54bc56a0p-54"),
    ("0x1.211fa323b56c0p-3", "-0x1.133738f80a411p+0", "0x1.c1141547fe1e8p-54"),
    ("0x1.21d5ac4b8dbafp-3", "-0x1.12d1a71c3f61ap+0", "0x1.9925591a16a51p-54"),
    ("0x1.22348a5a883afp-3", "-0x1.129cc972c2d56p+0", "-0x1.d3247618b2c38p-54"),
    ("0x1.0000000000000p-2", "-0x1.5956b87528a49p-1", "-0x1.5c3bae414389dp-55"),
    ("0x1.f5c28f5c28f5dp-2", "-0x1.9aba9f47868e9p-6", "-0x1.a5014c7d689c3p-61"),
    ("0x1.fffffffffc000p-2", "-0x1.40d931ff62706p-39", "0x1.a6a0d6a414ebdp-93"),
)


def ndtri_error() -> float:
    """The largest relative error of scipy's ``ndtri`` on the reference points
    (:data:`NDTRI_REFERENCE`). ``ndtri(p) - hi`` is exact (Sterbenz: both within a factor 2),
    so the measured error is the true one to a relative 2^-52."""
    from scipy.special import ndtri

    worst = 0.0
    for p, hi, lo in NDTRI_REFERENCE:
        ref = float.fromhex(hi)
        got = float(ndtri(float.fromhex(p)))
        worst = max(worst, abs(((got - ref) - float.fromhex(lo)) / ref))
    return worst
