"""The loader against the real API server's validation (checker/api_agreement.py): every Pod and
Node of the bundled manifests, mutated once per object, asked of both; the agreement rate and
every disagreement class, declared or not.

    python3 bench/api_validation.py                          # 10,000 mutated objects, seed 0
    python3 bench/api_validation.py --mutations 100000 --seed 7 --no-examples
    python3 bench/api_validation.py --kinds Pod,Node,PodDisruptionBudget,PriorityClass,Namespace

Exit 1 when a disagreement (mutated or base) matches no declared class.
"""

from __future__ import annotations

import argparse
import sys
import time

from schedspec.checker.api_agreement import base_objects, run
from schedspec.checker.oracle import Oracle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutations", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--kinds", default="Pod,Node", help="comma-separated (default Pod,Node)")
    parser.add_argument("--no-examples", action="store_true", help="signatures without examples")
    args = parser.parse_args(argv)
    bases = base_objects(kinds=tuple(args.kinds.split(",")))
    start = time.perf_counter()
    with Oracle() as oracle:
        result = run(
            oracle,
            mutations=args.mutations,
            seed=args.seed,
            bases=bases,
            progress=lambda n: print(f"... {n}", file=sys.stderr, flush=True),
        )
    print("\n".join(result.report(examples=not args.no_examples)))
    print(f"{time.perf_counter() - start:.1f} s")
    undeclared = result.undeclared()
    for sig, n in undeclared.items():
        print(f"UNDECLARED {n}: {sig}")
    return 1 if undeclared else 0


if __name__ == "__main__":
    sys.exit(main())
