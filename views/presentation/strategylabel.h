#pragma once

// The one way a training strategy is written in the GUI and the report: Megatron-LM's short names
// for the parallel dimensions (tensor, pipeline x virtual stages, data, context, expert; NVIDIA
// Megatron-LM megatron/training/arguments.py) with the size glued on, e.g. "TP8 PP4x2 DP32 Z1 mb2".

#include "engine/training/trainingstrategy.h"

#include <QString>

namespace clusterscope::views {

/// Short label: TP, then PP (xVPP when interleaved) when > 1, DP, CP and EP when > 1, ZeRO stage
/// as Z<n> when > 0, micro-batch as mb<n>.
QString strategyLabel(const engine::TrainingStrategy& s);

/// The short label followed by the knobs it leaves out: sequence parallelism, the context-parallel
/// kind, the pipeline schedule and activation recomputation, e.g.
/// "TP8 PP4 DP32 Z1 mb1 · sequence parallel · 1f1b schedule · selective recomputation".
QString strategyDescription(const engine::TrainingStrategy& s);

} // namespace clusterscope::views
