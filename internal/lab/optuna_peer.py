#!/usr/bin/python3
"""Optuna as a peer strategy of autotune's search harness (a development
tool, not a runtime dependency: Debian's python3-optuna, run with
/usr/bin/python3).

The harness (internal/lab/peer.go) starts this script once per run and
talks to it in JSON lines:

  first line (harness -> peer): {"knobs": [{"name": ..., "choices": [...]}
      or {"name": ...} for a numeric knob], "sampler": "tpe" | "mtpe",
      "seed": N}
  {"op": "ask"}       -> one line back: {"params": {name: value}}, a numeric
                         knob as its coordinate in [0, 1] along the knob's
                         search scale (search.Encode), a choice as a string
  {"op": "tell", "value": v}   the value of the last ask (higher is better)
  {"op": "observe", "params": {...}, "value": v}   a configuration the
                         harness measured without asking (baseline, warm
                         start), added to the study as a finished trial

"tpe" is optuna.samplers.TPESampler(seed=N), the independent TPE Optuna
users get by default; "mtpe" adds multivariate=True (Falkner et al. 2018).
"""
import json
import sys
import warnings

import optuna


def main():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore")
    head = json.loads(sys.stdin.readline())
    dists = {}
    for k in head["knobs"]:
        if k.get("choices"):
            dists[k["name"]] = optuna.distributions.CategoricalDistribution(k["choices"])
        else:
            dists[k["name"]] = optuna.distributions.FloatDistribution(0.0, 1.0)
    sampler = optuna.samplers.TPESampler(seed=head["seed"], multivariate=head["sampler"] == "mtpe")
    study = optuna.create_study(direction="maximize", sampler=sampler)
    trial = None
    for line in sys.stdin:
        msg = json.loads(line)
        op = msg["op"]
        if op == "ask":
            trial = study.ask(dists)
            print(json.dumps({"params": trial.params}), flush=True)
        elif op == "tell":
            study.tell(trial, float(msg["value"]))
            trial = None
        elif op == "observe":
            params = {n: v for n, v in msg["params"].items() if n in dists}
            study.add_trial(optuna.trial.create_trial(params=params, distributions=dists, value=float(msg["value"])))
        else:
            raise SystemExit("optuna_peer: unknown op %r" % op)


if __name__ == "__main__":
    main()
