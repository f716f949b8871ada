// Collective evaluations per second on one core (target >= 5 million/s so that a strategy search
// built on the model stays interactive), against a trivial alpha-beta formula measured in the same
// run. Prints throughput and the ratio; asserts no wall-clock limit.

#include "engine/catalog/catalog.h"
#include "engine/collectives/collectivemodel.h"
#include "engine/scenario/scenario.h"

#include <QtTest>

#include <chrono>
#include <vector>

using namespace clusterscope::engine;

namespace {

std::vector<CollectiveRequest> requestMix(const CollectiveModel& m)
{
    // Sizes 1 KiB .. 1 GiB, groups of 2 .. 1024 ranks (TP inside a node up to DP across nodes),
    // every op, Auto selection (the expensive path: every algorithm x protocol is costed).
    std::vector<CollectiveRequest> v;
    const CollectiveOp ops[] = { CollectiveOp::AllReduce, CollectiveOp::AllGather, CollectiveOp::ReduceScatter,
        CollectiveOp::AllReduce, CollectiveOp::Broadcast, CollectiveOp::AllToAll, CollectiveOp::SendRecv };
    const int groups[] = { 2, 8, 16, 64, 256, 1024 };
    for (double bytes = 1024; bytes <= 1024.0 * 1024 * 1024; bytes *= 4)
        for (int g : groups)
            for (CollectiveOp op : ops)
                v.push_back({ op, bytes, m.placementFor(g), CollectiveAlgorithm::Auto });
    return v;
}

template <typename F> double callsPerSecond(const std::vector<CollectiveRequest>& requests, F&& f, double& sink)
{
    using Clock = std::chrono::steady_clock;
    long long calls = 0;
    double acc = 0;
    const auto start = Clock::now();
    double elapsed = 0;
    while (elapsed < 1.0) {
        for (const auto& r : requests)
            acc += f(r);
        calls += static_cast<long long>(requests.size());
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    sink += acc;
    return calls / elapsed;
}

} // namespace

class BenchCollectives : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void throughput()
    {
        Scenario s;
        s.cluster.gpu = "H100-SXM-80GB";
        s.cluster.gpus = 1024;
        s.cluster.gpusPerNode = 8;
        const auto model = CollectiveModel::fromScenario(s, Catalog::builtin().value());
        QVERIFY2(model.isOk(), model.message().c_str());
        const CollectiveModel& m = *model;
        const auto requests = requestMix(m);
        double sink = 0;

        // Baseline: alpha-beta, t = alpha + 2(n-1)/n x S / B (the textbook ring formula).
        const double alpha = 10e-6, beta = 1.0 / 370.8e9;
        const double baseline = callsPerSecond(
            requests,
            [&](const CollectiveRequest& r) {
                const double n = r.group.ranks;
                return alpha + 2.0 * (n - 1) / n * r.bytes * beta;
            },
            sink);
        const double autoRate = callsPerSecond(
            requests, [&](const CollectiveRequest& r) { return m.estimate(r).seconds; }, sink);
        std::vector<CollectiveRequest> ring = requests;
        for (auto& r : ring)
            if (r.op != CollectiveOp::AllToAll && r.op != CollectiveOp::SendRecv)
                r.algorithm = CollectiveAlgorithm::Ring;
        const double fixedRate = callsPerSecond(
            ring, [&](const CollectiveRequest& r) { return m.estimate(r).seconds; }, sink);

        qInfo("requests in the mix: %zu (checksum %g)", requests.size(), sink);
        qInfo("baseline alpha-beta formula: %.1f million evaluations/s", baseline / 1e6);
        qInfo("CollectiveModel::estimate, Auto (all algorithms x protocols): %.2f million evaluations/s (target >= 5), "
              "baseline/model ratio %.1f",
            autoRate / 1e6, baseline / autoRate);
        qInfo("CollectiveModel::estimate, fixed algorithm (ring/direct): %.2f million evaluations/s, ratio %.1f",
            fixedRate / 1e6, baseline / fixedRate);
        QVERIFY(autoRate > 0 && baseline > 0);
    }
};

QTEST_GUILESS_MAIN(BenchCollectives)
#include "bench_collectives.moc"
