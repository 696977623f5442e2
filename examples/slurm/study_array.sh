#!/bin/bash
# One skggm-bench study split over a SLURM job array, then merged into one store.
#
#   sbatch examples/slurm/study_array.sh                  # the K parts, in parallel
#   sbatch --dependency=afterok:<JOBID> --wrap \
#       "skggm-bench merge results/study.shard-*.sqlite --out results/study.sqlite"
#
# Each task runs the I-th of K deterministic parts of the study's fits (balanced by
# expected cost) into a store of its own; a task that is killed or pre-empted is
# resumed by submitting it again (sbatch --array=I ...): its stored fits are kept.
# The merge checks that the parts are of one study and that every row of a data set
# carries the same data hash, and gives the store of one uninterrupted run.
#
#SBATCH --job-name=skggm-bench
#SBATCH --array=1-8
#SBATCH --cpus-per-task=8
#SBATCH --mem=16G
#SBATCH --time=04:00:00
#SBATCH --output=logs/skggm-bench-%A_%a.out

set -euo pipefail

PARTS="${SLURM_ARRAY_TASK_COUNT}"   # the size of --array (an array from 1 to K)
STUDY=study.toml        # or replace --config "$STUDY" with --preset kramer2009
mkdir -p results logs

# One BLAS thread per worker: the study's own parallelism uses the cores.
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

skggm-bench run --config "$STUDY" \
    --shard "${SLURM_ARRAY_TASK_ID}/${PARTS}" \
    --store "results/study.shard-${SLURM_ARRAY_TASK_ID}-of-${PARTS}.sqlite" \
    --n-jobs "${SLURM_CPUS_PER_TASK}" --no-progress
