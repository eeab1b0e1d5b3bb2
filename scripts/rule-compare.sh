#!/usr/bin/env bash
# On the GPU machine: two builds of the tierfft binary against cuFFT at the lengths where
# their plans differ, 1 GiB per call and batches 1 and 16, interleaved in one run:
#   bash scripts/rule-compare.sh .carry/tierfft .carry/tierfft-other 17408,19456,348,186,372
set -u
a=$1 b=$2 sizes=$3
for bin in "$a" "$b" "$a" "$b"; do
    echo "== $bin, 1 GiB per call"
    "$bin" bench --backend cuda --compare cufft --sizes "$sizes" --reps 30 2>&1 | grep -E "^ +[0-9]|rror"
    echo "== $bin, batches 1 and 16"
    "$bin" bench --backend cuda --compare cufft --small --sizes "$sizes" --reps 50 2>&1 | grep -E "^ +[0-9]|rror"
done
