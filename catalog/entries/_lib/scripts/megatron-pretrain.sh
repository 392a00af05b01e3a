#!/bin/bash
# Nemotron 5 Megatron-LM pretraining on mock data (our own script; rendered per build; the model shape
# comes from the entry's `modelShapeArgs`).
set -euo pipefail
NNODES={{nodesPerJob}}
GPUS_PER_NODE={{gpusPerNode}}
TOTAL_GPUS=$((NNODES * GPUS_PER_NODE))
MBS=1
GBS=${TOTAL_GPUS}
TP=${TP:-{{tp}}}
PP=${PP:-{{pp}}}
SEQ_LENGTH=${SEQ_LENGTH:-4096}
CHECKPOINT_ARGS=""
if [ "${ENABLE_CHECKPOINT:-false}" = "true" ]; then
  CHECKPOINT_ARGS="--save /mnt/workspace/checkpoints --load /mnt/workspace/checkpoints --save-interval ${SAVE_INTERVAL} --non-persistent-save-interval ${SAVE_INTERVAL}"
fi
cd /mnt/workspace/megatron-lm
exec torchrun --nnodes=${NNODES} --nproc-per-node=${GPUS_PER_NODE} \
  --node-rank=${PET_NODE_RANK:-0} --master-addr=${PET_MASTER_ADDR:-localhost} --master-port=${PET_MASTER_PORT:-29500} \
  pretrain_gpt.py \
  --tensor-model-parallel-size ${TP} --pipeline-model-parallel-size ${PP} \
  {{modelShapeArgs}} \
  --seq-length ${SEQ_LENGTH} --max-position-embeddings ${SEQ_LENGTH} \
  --micro-batch-size ${MBS} --global-batch-size ${GBS} \
  --train-iters {{maxSteps}} --exit-duration-in-mins {{exitDurationMins}} \
  --lr 1.0e-4 --min-lr 1.0e-5 --lr-decay-style cosine --bf16 \
  --mock-data --tokenizer-type NullTokenizer --vocab-size 131072 \
  --log-interval 1 --log-throughput --eval-iters 0 ${RECOMPUTE_ARGS:-} ${CHECKPOINT_ARGS}
