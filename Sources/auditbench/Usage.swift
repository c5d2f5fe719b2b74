/// What `auditbench --help` prints.
let usage = """
    usage: auditbench [--quick] [--runs N] [--only SECTIONS] [--json PATH]

    Measures auditctl's figures, each against a baseline taken in the same run, and prints
    their medians (min–max), the ratio to the baseline and, per goal, PASS or FAIL.

      --quick          small sizes, one run: checks that every figure can be measured (CI)
      --runs N         runs per figure (default 5, 1 with --quick); some sections run N/2
      --only SECTIONS  comma-separated: hot, throughput, replay, diff, query, explore, mutants, text,
                       corpus; scheduler (replay --all's policy, each piece off in turn) runs only
                       when named
      --json PATH      where the figures are written (default auditbench.json)

    mutants: the one-line mutants of checkout.v1 (18, and 2 equivalent ones), each replayed with
    the shipped session, replayed with the corpus explore grows in 200 runs of checkout.v1, and
    explored guided and unguided (at most 1,000 runs), seeds 1, 2, 3; seeded, so run once
    whatever --runs; where each mutant is caught, on stderr.
    With --quick: 3 mutants and 1 equivalent, seed 1, at most 20 runs, a corpus of 8 runs.
    """
