"""The "Reproduce this" builders of the four pages (registered in :data:`dpcda.dashboard.reproduce.BUILDERS`).

Each turns a page's :class:`~dpcda.dashboard.reproduce.ReproSettings` into the library call, the
``python -m dpcda`` command(s) and a standalone script for the result that page shows.
"""

from __future__ import annotations

import math

from dpcda.dashboard.reproduce.core import (ReproSettings, Reproduction, command, file_stem, kwargs, num,
                                            py, register_builder, script)


def _accountant(s: ReproSettings, mechanism: str = "dp-cda") -> str:
    from dpcda.mechanisms import MECHANISMS

    return MECHANISMS.get(mechanism).check_accountant(s.accountant)


def _need(s: ReproSettings, *names: str) -> None:
    missing = [n for n in names if getattr(s, n) in (None, ())]
    if missing:
        raise ValueError(f"the {s.page} page's reproduction needs {', '.join(missing)}")


# --- Privacy: the epsilon of one setting ------------------------------------------------------

def _facts(s: ReproSettings) -> tuple[str, dict, list]:
    """(Python lines, PrivacyParams facts as code, CLI options) for the dataset facts."""
    from dpcda.data.presets import PRESETS

    if s.dataset in PRESETS:
        code = f"pre = get_preset({s.dataset!r})  # public facts: N, class counts, d_x, d_y\n"
        facts = {"n": "pre.n", "class_counts": "pre.class_counts", "d_x": "pre.d_x", "d_y": "pre.d_y"}
        return code, facts, ["--preset", s.dataset]
    if s.n is None and s.class_counts is None:
        raise ValueError("the privacy page's reproduction needs a preset dataset, n or class_counts")
    n = s.n if s.n is not None else sum(s.class_counts)
    facts = {"n": py(n), "class_counts": py(s.class_counts), "d_x": py(s.d_x), "d_y": py(s.d_y)}
    opts = ["--n", n, "--class-counts", ",".join(map(str, s.class_counts)) if s.class_counts else None,
            "--dx", s.d_x, "--dy", s.d_y]
    return "", facts, opts


def _T(s: ReproSettings) -> int:
    from dpcda.data.presets import PRESETS

    if s.T is not None:
        return s.T
    if s.dataset in PRESETS:
        return PRESETS.get(s.dataset).n
    return s.n if s.n is not None else sum(s.class_counts or (1,))


@register_builder("privacy")
def privacy_page(s: ReproSettings) -> Reproduction:
    from dpcda.privacy import get_accountant

    _need(s, "l", "sigma_x")
    acc = s.accountant or _accountant(s)
    get_accountant(acc)  # a bad name is a ValueError listing the known ones
    sy = s.sigma_x if s.sigma_y is None else s.sigma_y
    alloc = s.allocation or "equal"
    c = 1.0 if s.c is None else s.c
    pre, facts, opts = _facts(s)
    T = _T(s)
    params = ", ".join(f"{k}={v}" for k, v in
                       {"l": py(s.l), "sigma_x": py(s.sigma_x), "sigma_y": py(sy), "c": py(c),
                        "T": py(T), "delta": py(s.delta), **facts, "allocation": py(alloc)}.items()
                       if v != "None")
    imports = ("from dpcda.data.presets import get_preset\n" if pre else "") + \
        "from dpcda.privacy import PrivacyParams, calibrate, compute_epsilon\n"
    lib = (f"{imports}\n{pre}p = PrivacyParams({params})\n"
           f"r = compute_epsilon(p, accountant={acc!r}, conversion={s.conversion!r}, "
           f"max_alpha={s.max_alpha})\nprint(r.epsilon, r.delta, r.accountant)\n")
    common = ["--c", c, "--T", T, "--delta", s.delta, "--accountant", acc, "--conversion",
              s.conversion, "--max-alpha", s.max_alpha, "--allocation", alloc, *opts, "--json"]
    cli = [command(["epsilon", "--l", s.l, "--sigma-x", s.sigma_x, "--sigma-y", sy, *common])]
    body = lib.replace("print(r.epsilon, r.delta, r.accountant)\n", "") + (
        "print(f'epsilon = {r.epsilon:.6g} at delta = {r.delta:g} ({r.accountant} accountant)')\n"
        "result = {'epsilon': r.epsilon if math.isfinite(r.epsilon) else None, 'delta': r.delta,\n"
        "          'accountant': r.accountant}\n")
    if s.epsilon is not None:
        ratio = 1.0 if s.sigma_x == 0 else sy / s.sigma_x
        kw = ", ".join(f"{k}={v}" for k, v in {"n": facts["n"], "class_counts": facts["class_counts"],
                                                "d_x": facts["d_x"], "d_y": facts["d_y"]}.items()
                       if v != "None")
        cal = (f"cal = calibrate(epsilon={py(s.epsilon)}, l={s.l}, c={py(c)}, T={T}, "
               f"delta={py(s.delta)}, {kw}, allocation={alloc!r}, accountant={acc!r}, "
               f"conversion={s.conversion!r}, ratio={py(ratio)}, max_alpha={s.max_alpha})\n")
        lib += cal + "print(cal.sigma_x, cal.epsilon)  # the noise that reaches the target\n"
        body += cal + ("print(f'sigma_x = {cal.sigma_x:.6g} reaches epsilon = {cal.epsilon:.6g} "
                       f"(target {s.epsilon:g})')\nresult['calibrated_sigma_x'] = cal.sigma_x\n")
        cli.append(command(["calibrate", "--epsilon", s.epsilon, "--l", s.l, "--ratio", ratio,
                            *common]))
    what = f"Privacy page: epsilon of a DP-CDA release, {s.dataset or 'custom data'}, l = {s.l}"
    return Reproduction("privacy", what, lib, tuple(cli), script(what, body),
                        file_stem("dpcda_privacy", s.dataset, f"l{s.l}") + ".py")


# --- Samples: one release ---------------------------------------------------------------------

@register_builder("samples")
def samples_page(s: ReproSettings) -> Reproduction:
    _need(s, "dataset", "l")
    if (s.epsilon is None) == (s.sigma_x is None):
        raise ValueError("the samples page's reproduction needs either epsilon (a target) or sigma_x")
    acc = _accountant(s)
    noise = {"epsilon": s.epsilon} if s.epsilon is not None else \
        {"sigma_x": s.sigma_x, "sigma_y": s.sigma_x if s.sigma_y is None else s.sigma_y}
    params = {"l": s.l, **noise, "T": s.T, "c": s.c, "delta": s.delta, "accountant": acc,
              "conversion": s.conversion, "max_alpha": s.max_alpha, "normalize": s.normalization,
              "allocation": s.allocation}
    tag = f"eps{s.epsilon:g}" if s.epsilon is not None else f"sigma{s.sigma_x:g}"
    stem = file_stem("dpcda", s.dataset, f"l{s.l}", tag)
    notes = []
    if s.dataset == "upload":
        load = "from pathlib import Path\n\nfrom dpcda.data import load_upload\n"
        ds = ("PATH = 'your_upload.csv'  # the file you uploaded\n"
              "ds = load_upload(Path(PATH).read_bytes(), PATH)\n")
        cli: tuple[str, ...] = ()
        notes.append("The command line reads the built-in datasets only; for an upload use the "
                     "library call or the script (set PATH to your file).")
    else:
        load = "from dpcda.data import load_dataset\n"
        ds = f"ds = load_dataset({s.dataset!r})\n"
        cli = (command(["generate", "--dataset", s.dataset, "--l", s.l, "--epsilon", s.epsilon,
                        "--sigma-x", s.sigma_x, "--sigma-y", noise.get("sigma_y"), "--T", s.T,
                        "--c", s.c, "--delta", s.delta, "--accountant", acc, "--conversion",
                        s.conversion, "--max-alpha", s.max_alpha, "--normalize", s.normalization,
                        "--allocation", s.allocation, "--denoise", s.denoise_sigma,
                        "--out", stem + ".npz"]),)
    den = ("from dpcda.mechanisms import denoise\n", f"rel = denoise(rel, sigma={py(s.denoise_sigma)})"
           "  # post-processing: no privacy cost\n") if s.denoise_sigma else ("", "")
    lib = (f"{load}from dpcda.mechanisms import generate_from_dataset, save_npz\n{den[0]}\n{ds}"
           f"rel = generate_from_dataset(ds, 'dp-cda',\n{kwargs(params)})\n{den[1]}"
           f"save_npz(rel, {stem + '.npz'!r})  # also writes the data card {stem}.json\n"
           "print(rel.summary())\n")
    body = lib + ("p = rel.card['privacy']\n"
                  "result = {'epsilon': p['epsilon'], 'delta': p['delta'], 'accountant': p['accountant'],\n"
                  "          'sigma_x': rel.card['parameters']['sigma_x'], 'n': rel.n}\n")
    what = f"Samples page: a DP-CDA release of {s.dataset}, l = {s.l}"
    return Reproduction("samples", what, lib, cli, script(what, body), stem + ".py", tuple(notes))


# --- Utility: an accuracy sweep ---------------------------------------------------------------

def _train(s: ReproSettings) -> dict:
    out = {"model": s.model, "epochs": s.epochs, "label_mode": s.label_mode}
    if s.denoise_sigma:
        out["denoise_sigma"] = s.denoise_sigma
    return {k: v for k, v in out.items() if v is not None}


@register_builder("utility")
def utility_page(s: ReproSettings) -> Reproduction:
    _need(s, "dataset", "ls")
    if bool(s.epsilons) == bool(s.sigmas):
        raise ValueError("the utility page's reproduction needs either epsilons or sigmas")
    acc = _accountant(s, s.mechanism)
    mech = None if s.mechanism == "dp-cda" else s.mechanism
    base = {k: v for k, v in {"dataset": s.dataset, "mechanism": mech, "accountant": acc,
                              "conversion": s.conversion, "delta": s.delta, "c": s.c,
                              "normalization": s.normalization, "allocation": s.allocation,
                              "T": s.T, "train": _train(s)}.items()
            if v is not None}
    grid = {"epsilons": list(s.epsilons) or None, "sigmas": list(s.sigmas) or None,
            "ls": list(s.ls), "Ts": list(s.Ts) or None, "runs": s.runs}
    grid_txt = ", ".join(f"{k}={py(v)}" for k, v in grid.items() if v is not None)
    lib = ("from dpcda.experiments.sweep import submit_sweep\nfrom dpcda.jobs import JobStore\n"
           "from dpcda.experiments.run import "
           "run_experiment\nfrom dpcda.experiments.sweep import grid_configs\n\n"
           f"base = {py(base)}\n"
           f"# What the page does: queue the grid in the job store ($DPCDA_HOME); a worker runs it\n"
           f"sweep_id = submit_sweep(JobStore(), base, {grid_txt}"
           + (f", x={s.x!r}" if s.x else "") + ")\n"
           "# ... or run every point here, one after the other:\n"
           f"results = [run_experiment(cfg) for cfg in grid_configs(base, {grid_txt})]\n")
    out = file_stem("dpcda_sweep", s.dataset) + ".csv"
    tr = _train(s)
    cli = (command(["sweep", "--dataset", s.dataset, "--mechanism", mech,
                    "--epsilons", ",".join(num(float(e)) for e in s.epsilons) or None,
                    "--sigmas", ",".join(num(float(v)) for v in s.sigmas) or None,
                    "--ls", ",".join(map(str, s.ls)), "--T",
                    ",".join(map(str, s.Ts)) if s.Ts else s.T, "--runs", s.runs,
                    "--model", tr.get("model"), "--epochs", tr.get("epochs"), "--label-mode",
                    tr.get("label_mode"), "--accountant", acc, "--conversion", s.conversion,
                    "--delta", s.delta, "--c", s.c, "--normalization", s.normalization,
                    "--allocation", s.allocation, "--x", s.x, "--out", out]),)
    notes = ("The command line has no denoise option: the library call and the script apply "
             f"the {s.denoise_sigma:g}-pixel filter, the command does not.",) if s.denoise_sigma else ()
    head = lib.split("# What the page does")[0]
    body = (head.replace("from dpcda.experiments.sweep import submit_sweep\n"
                         "from dpcda.jobs import JobStore\n", "")
            + f"cells = {{}}\nfor cfg in grid_configs(base, {grid_txt}):\n"
            "    r = run_experiment(cfg)\n"
            "    key = (cfg.get('epsilon'), cfg.get('sigma'), cfg.get('T'), cfg['l'])\n"
            "    cells.setdefault(key, []).append(r)\n"
            "    print(f\"l = {cfg['l']}, sigma_x = {r['sigma_x']:.4g}, epsilon = {r['epsilon']:.4g}: \"\n"
            "          f\"accuracy {r['accuracy']:.4f}\")\n"
            "result = {'cells': []}\n"
            "for (eps, sigma, T, l), rs in cells.items():\n"
            "    acc = [r['accuracy'] for r in rs]\n"
            "    mean = sum(acc) / len(acc)\n"
            "    var = sum((a - mean) ** 2 for a in acc) / (len(acc) - 1) if len(acc) > 1 else None\n"
            "    std = None if var is None else var ** 0.5\n"
            "    e = rs[0]['epsilon']\n"
            "    result['cells'].append({'epsilon_target': None if eps is None or math.isinf(eps) else eps,\n"
            "                            'sigma': sigma, 'T': T, 'l': l, 'sigma_x': rs[0]['sigma_x'],\n"
            "                            'epsilon': e if math.isfinite(e) else None,\n"
            "                            'accuracy_mean': mean, 'accuracy_std': std, 'runs': len(acc)})\n")
    from dpcda.mechanisms import MECHANISMS

    what = (f"Utility page: test accuracy of models trained on {MECHANISMS.get(s.mechanism).title} "
            f"releases of {s.dataset}")
    return Reproduction("utility", what, lib, cli, script(what, body),
                        file_stem("dpcda_sweep", s.dataset) + ".py", notes)


# --- Compare: every mechanism at one target epsilon -------------------------------------------

@register_builder("compare")
def compare_page(s: ReproSettings) -> Reproduction:
    from dpcda.experiments.compare import default_ls
    from dpcda.mechanisms import MECHANISMS

    _need(s, "dataset", "epsilon", "mechanisms")
    ls = dict(s.mechanism_ls)
    accs = {m: MECHANISMS.get(m).check_accountant(dict(s.accountants).get(m)) for m in s.mechanisms}
    train = {k: v for k, v in {"epochs": s.epochs, "model": None if s.model == "auto" else s.model}.items()
             if v is not None}
    call = (f"jobs = compare_jobs({s.dataset!r}, {py(s.epsilon)}, mechanisms={py(list(s.mechanisms))}, "
            f"runs={s.runs},\n                    ls={py({m: list(v) for m, v in ls.items()})}, "
            f"delta={py(s.delta)}, c={py(1.0 if s.c is None else s.c)},\n"
            f"                    accountants={py(accs)}, train={py(train)})\n")
    lib = ("from dpcda.experiments.compare import compare_jobs, compare_table\n"
           "from dpcda.jobs import JobStore\n\n"
           + call + "# What the page does: queue them in the job store ($DPCDA_HOME); a worker runs them\n"
           "sweep_id = JobStore().create_sweep('compare', {'page': 'compare'}, jobs)\n")
    cli = []
    for m in s.mechanisms:
        spec = MECHANISMS.get(m)
        m_ls = sorted(ls.get(m) or default_ls(m)) if spec.mixes else [1]
        cli.append(command(["sweep", "--dataset", s.dataset, "--mechanism", m, "--epsilons", s.epsilon,
                            "--ls", ",".join(map(str, m_ls)), "--runs", s.runs, "--epochs", s.epochs,
                            "--model", train.get("model"), "--c", 1.0 if s.c is None else s.c,
                            "--delta", s.delta, "--accountant", accs[m],
                            "--out", file_stem("dpcda_compare", s.dataset, m) + ".csv"]))
    body = ("from types import SimpleNamespace\n\n"
            "from dpcda.experiments.compare import compare_jobs, compare_table\n"
            "from dpcda.experiments.run import run_experiment\n\n" + call
            + "done = []\nfor kind, cfg in jobs:\n    r = run_experiment(cfg)\n"
              "    print(f\"{cfg['mechanism']}, l = {cfg['l']}, run {cfg['run']}: \"\n"
              "          f\"accuracy {r['accuracy']:.4f}\")\n"
              "    done.append(SimpleNamespace(status='done', config=cfg, result=r))\n"
              f"table = compare_table(done, {py(list(s.mechanisms))}, dataset={s.dataset!r}, "
              f"epsilon={py(s.epsilon)}, quoted=False)\n"
              "print(table.to_string(index=False))\n"
              "\n\ndef value(v):  # NaN / <NA> -> None (JSON)\n"
              "    return None if v is None or str(v) in ('<NA>', 'nan') else v\n\n\n"
              "result = {'rows': [{'method': r['method'], 'accuracy': value(r['accuracy']),\n"
              "                    'epsilon': value(r['ε']), 'sigma': value(r['σ']),\n"
              "                    'l': None if value(r['l']) is None else int(r['l'])}\n"
              "                   for _, r in table.iterrows()]}\n")
    what = f"Compare page: every mechanism at epsilon = {s.epsilon:g} on {s.dataset}"
    if math.isinf(s.epsilon):
        raise ValueError("the compare page's reproduction needs a finite epsilon")
    return Reproduction("compare", what, lib, tuple(cli), script(what, body),
                        file_stem("dpcda_compare", s.dataset, f"eps{s.epsilon:g}") + ".py")
