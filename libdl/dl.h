/* dl.h: the one header users include.
 *
 * Copyright 2026 The libdl authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#define DL_INSIDE

#include "dl-types.h"
#include "dl-error.h"
#include "dl-dtype.h"
#include "dl-device.h"
#include "dl-generator.h"
#include "dl-storage.h"
#include "dl-tensor.h"
#include "dl-enums.h"
#include "dl-node.h"
#include "autograd/dl-autograd.h"
#include "autograd/dl-function.h"
#include "ops/dl-ops-creation.h"
#include "ops/dl-ops-pointwise.h"
#include "ops/dl-ops-reduce.h"
#include "ops/dl-ops-scan.h"
#include "ops/dl-ops-shape.h"
#include "ops/dl-ops-linalg.h"
#include "ops/dl-ops-einsum.h"
#include "ops/dl-ops-activation.h"
#include "ops/dl-ops-math.h"
#include "ops/dl-ops-index.h"
#include "ops/dl-ops-join.h"
#include "ops/dl-ops-conv.h"
#include "autograd/dl-gradcheck.h"
#include "nn/dl-module.h"
#include "nn/dl-linear.h"
#include "nn/dl-conv.h"
#include "nn/dl-activation-modules.h"
#include "nn/dl-sequential.h"
#include "nn/dl-containers.h"
#include "nn/dl-loss.h"
#include "nn/dl-loss-modules.h"
#include "nn/dl-init.h"
#include "nn/dl-nn-utils.h"
#include "optim/dl-optimizer.h"
#include "optim/dl-sgd.h"
#include "optim/dl-adam.h"
#include "optim/dl-adamw.h"
#include "optim/dl-rmsprop.h"
#include "optim/dl-adagrad.h"
#include "optim/dl-lbfgs.h"
#include "optim/dl-lr-scheduler.h"
#include "optim/dl-lr-schedulers.h"
#include "optim/dl-reduce-lr-on-plateau.h"
#include "data/dl-datasets.h"
#include "data/dl-tensor-dict.h"
#include "data/dl-safetensors.h"

#undef DL_INSIDE
