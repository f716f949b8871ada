// Benchmark: importing and analysing ibnetdiscover dumps of generated production-size fabrics
// (3-tier fat-trees of HDR Quantum-like switches, each listing its SHARP aggregation node, plus a
// small management network): 5,000 CAs and 50,000 CAs. Reports seconds, CAs per second and peak
// RSS, and the ratio against the importer this one replaced (baseline/legacy_ibnetdiscover.inc,
// run in the same process on the same text). No wall-clock assertion (house style); the targets
// (5,000 CAs < 0.5 s and < 100 MB, 50,000 CAs < 5 s) are read from the output.

#include "engine/fabric/fabricbuilder.h"
#include "importers/ibnetdiscover/ibnetdiscoverparser.h"
#include "importers/ibnetdiscover/ibnetdiscoverwriter.h"

#include "baseline/legacy_ibnetdiscover.inc"

#include <QtTest>

#include <chrono>
#include <sys/resource.h>

using namespace clusterscope;

namespace {

double peakRssMb()
{
    rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0; // KiB on Linux
}

std::string dump(int hosts, int radix)
{
    engine::HostOptions ho;
    ho.hosts = hosts;
    ho.gpusPerNode = 1;
    ho.nicsPerNode = 1;
    ho.nicGbps = 200;
    engine::ClosOptions co;
    co.radix = radix;
    co.tiers = 3;
    auto d = engine::buildClos(ho, co);
    if (!d)
        qFatal("%s", d.message().c_str());
    importers::IbnetdiscoverWriteOptions o;
    o.sharpAggregationNodes = true;
    o.managementSwitches = 2;
    o.managementHosts = 8;
    return importers::writeIbnetdiscover(d->graph, o);
}

template <typename F> double bestSeconds(int runs, F&& f)
{
    double best = 1e300;
    for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
}

void measure(const char* what, int hosts, int radix, int runs, bool withLegacy)
{
    const std::string text = dump(hosts, radix);
    const double rssBefore = peakRssMb();
    std::size_t flags = 0, cas = 0;
    const double fresh = bestSeconds(runs, [&] {
        auto f = importers::parseIbnetdiscover(text, "bench.topo");
        QVERIFY(f);
        flags = f->flags.size();
        cas = f->graph.countNodes(engine::NodeKind::Nic) + f->structure.embedded.size();
    });
    const double rssAfter = peakRssMb();
    qInfo("%s: %zu CAs (SHARP nodes included), %.1f MB of text", what, cas, text.size() / 1e6);
    qInfo("  import + analysis: %.3f s (%.0f CAs/s), %zu flags; peak RSS %.0f MB (%.0f MB before the import, dump text "
          "included)",
        fresh, cas / fresh, flags, rssAfter, rssBefore);
    if (withLegacy) {
        std::size_t legacyFlags = 0;
        const double legacy = bestSeconds(runs, [&] {
            auto f = legacy::parseIbnetdiscover(text, "bench.topo");
            QVERIFY(f);
            legacyFlags = f->flags.size();
        });
        qInfo("  previous importer: %.3f s, %zu flags (its all-pairs missing-link rule across pods); new/previous time "
              "ratio %.2f"
              " (speed-up %.1fx)",
            legacy, legacyFlags, fresh / legacy, legacy / fresh);
    } else {
        // The previous importer flags every leaf-spine pair of different pods as missing: about
        // leaves x spines (~2.4 million here) flags, gigabytes of messages; not run at this size.
        qInfo("  previous importer: not run at this size (its cross-pod missing-link flood would need gigabytes)");
    }
    QCOMPARE(flags, std::size_t(0)); // a healthy fabric
}

} // namespace

class BenchIbnetdiscover : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void import5kCas() { measure("5,000 hosts, radix 40, 3 tiers", 5000, 40, 3, true); }
    void import50kCas() { measure("50,000 hosts, radix 64, 3 tiers", 50000, 64, 1, false); }
};

QTEST_GUILESS_MAIN(BenchIbnetdiscover)
#include "bench_ibnetdiscover.moc"
