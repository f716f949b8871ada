// Benchmark: a 32,768-GPU three-tier fat-tree (4,096 HGX servers, 8 x 400G rails, radix 64) with a
// ring AllReduce routed by static ECMP. Reports build, routing + link-load time, max-min time and
// peak RSS, and a same-run baseline: one pass adding each flow's bytes to its two PCIe links (the
// least work any router must do per flow). No wall-clock assertion (house style).

#include "engine/fabric/bisection.h"
#include "engine/fabric/fabricbuilder.h"
#include "engine/fabric/flowmodel.h"
#include "engine/fabric/trafficpatterns.h"

#include <QtTest>

#include <chrono>
#include <sys/resource.h>

using namespace clusterscope::engine;

namespace {
double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}
double peakRssMb()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0; // ru_maxrss is in KiB on Linux
}
} // namespace

class BenchFabric : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void ringAllReduceEcmp32k()
    {
        using clock = std::chrono::steady_clock;
        HostOptions ho;
        ho.hosts = 4096;
        ClosOptions co;
        co.radix = 64;
        co.tiers = 3;
        const auto t0 = clock::now();
        auto design = buildClos(ho, co);
        QVERIFY2(design.isOk(), design.message().c_str());
        const auto t1 = clock::now();
        const auto flows = ringAllReduceFlows(*design, 1e9); // 1 GB AllReduce
        const FlowModel model(*design);
        const auto t2 = clock::now();
        FlowOptions opt;
        auto placement = model.route(flows, opt);
        QVERIFY(placement.isOk());
        const auto loads = model.linkBytes(*placement);
        const auto t3 = clock::now();
        // Baseline: the same flows, bytes added to the GPU->NIC link of each end only.
        std::vector<double> base(design->graph.linkCount() * 2, 0.0);
        const auto b0 = clock::now();
        for (const Flow& f : flows) {
            base[2 * (design->nicOfGpu[f.src] % base.size())] += f.bytes;
            base[2 * (design->nicOfGpu[f.dst] % base.size()) + 1] += f.bytes;
        }
        const auto b1 = clock::now();
        const auto rates = model.maxMinRatesGbps(*placement);
        const auto t4 = clock::now();
        const double bis = bisectionGbps(*design);
        const auto t5 = clock::now();

        double maxLoad = 0;
        for (double b : loads)
            maxLoad = std::max(maxLoad, b);
        const auto tiers = design->graph.switchesPerTier();
        const double routeS = seconds(t2, t3);
        const double baseS = std::max(1e-9, seconds(b0, b1));
        qInfo("fabric: %zu GPUs, %zu switches (%zu/%zu/%zu), %zu links, %zu flows, %zu sub-flow path entries",
            design->gpus.size(), design->graph.countNodes(NodeKind::Switch), tiers[0], tiers[1], tiers[2],
            design->graph.linkCount(), flows.size(), placement->dlinks.size());
        qInfo("build %.3f s; ECMP routing + link loads %.3f s (%.2f M flows/s); baseline pass %.4f s; ratio %.1fx",
            seconds(t0, t1), routeS, flows.size() / routeS / 1e6, baseS, routeS / baseS);
        qInfo("max-min %.3f s; bisection (max-flow) %.3f s = %.1f Tb/s; peak RSS %.0f MB; max link load %.3f GB",
            seconds(t3, t4), seconds(t4, t5), bis / 1000, peakRssMb(), maxLoad / 1e9);
        // Contention figures on the same fabric (not timed against a limit): the ring stays mostly
        // under its leaves; the half-shift permutation crosses the core and shows ECMP collisions.
        const auto shift = shiftFlows(*design, 16384, 1e9);
        for (RoutingMode mode : { RoutingMode::Ecmp, RoutingMode::Adaptive, RoutingMode::Spray }) {
            FlowOptions o;
            o.routing = mode;
            const auto c0 = clock::now();
            auto ringT = model.time(flows, o);
            auto shiftT = model.time(shift, o);
            const auto c1 = clock::now();
            QVERIFY(ringT.isOk() && shiftT.isOk());
            qInfo("%s: ring AllReduce slowdown %.2fx (max util %.2f); half-shift slowdown %.2fx (max util %.2f); %.2f "
                  "s; peak RSS %.0f MB",
                mode == RoutingMode::Ecmp           ? "ecmp"
                    : mode == RoutingMode::Adaptive ? "adaptive"
                                                    : "spray",
                ringT->slowdown, ringT->maxUtilisation, shiftT->slowdown, shiftT->maxUtilisation, seconds(c0, c1),
                peakRssMb());
        }
        QCOMPARE(design->gpus.size(), std::size_t(32768));
        QCOMPARE(rates.size(), placement->bytes.size());
        QVERIFY(placement->unroutable.empty());
        QVERIFY(base[0] > 0);
    }
};

QTEST_GUILESS_MAIN(BenchFabric)
#include "bench_fabric.moc"
