#pragma once

// The training evaluator of a scenario a test built itself: it must load, so a failure stops the test
// run with the evaluator's message (shared by the training-model tests).

#include "engine/catalog/catalog.h"
#include "engine/training/trainingevaluator.h"

#include <QtGlobal>

namespace clusterscope::testsupport {

inline engine::TrainingEvaluator evaluatorFor(const engine::Scenario& s, const engine::Catalog& catalog)
{
    auto r = engine::TrainingEvaluator::create(s, catalog);
    if (!r)
        qFatal("%s", r.message().c_str());
    return *r;
}

} // namespace clusterscope::testsupport
