// The distributed import-trace on 1,024 generated rank files (~1.5 GB of Kineto JSON in a temporary
// directory, deleted afterwards): wall time and peak memory per process under `mpirun -np 1` and
// `-np 2`, the speed-up ratio, the parse cost per byte and the bytes of rank summaries gathered:
// the inputs of the README's cost model at 16,384 ranks. Prints figures; never asserts a wall-clock
// limit. CLUSTERSCOPE_BENCH_MPI_RANKS / CLUSTERSCOPE_BENCH_MPI_BYTES_PER_RANK change the size.

#include "tests/support/kinetotracegenerator.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cstdio>

namespace {

struct Outcome {
    double seconds = 0;
    QString err;
    bool ok = false;
};

Outcome importWith(int processes, const QString& dir)
{
    Outcome o;
#ifdef CLUSTERSCOPE_MPIEXEC
    QProcess p;
    p.start(QStringLiteral(CLUSTERSCOPE_MPIEXEC),
        { QStringLiteral("--oversubscribe"), QStringLiteral("--allow-run-as-root"), QStringLiteral("--bind-to"),
            QStringLiteral("none"), QStringLiteral("-np"), QString::number(processes),
            QStringLiteral(CLUSTERSCOPE_CLI_PATH), QStringLiteral("import-trace"), dir, QStringLiteral("--json") });
    const auto t0 = std::chrono::steady_clock::now();
    const bool finished = p.waitForFinished(1800000);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    o.err = QString::fromUtf8(p.readAllStandardError());
    o.ok = finished && p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
#else
    Q_UNUSED(processes);
    Q_UNUSED(dir);
#endif
    return o;
}

double number(const QString& text, const QString& pattern)
{
    const auto m = QRegularExpression(pattern).match(text);
    return m.hasMatch() ? m.captured(1).toDouble() : -1;
}

int envInt(const char* name, int fallback)
{
    const QByteArray v = qgetenv(name);
    return v.isEmpty() ? fallback : v.toInt();
}

} // namespace

class BenchMpiImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void oneVersusTwoProcesses()
    {
#ifndef CLUSTERSCOPE_MPIEXEC
        QSKIP("clusterscope-cli is built without MPI (-DCLUSTERSCOPE_MPI=OFF)");
#endif
        clusterscope::testing::TraceGeneratorSpec spec;
        spec.ranks = envInt("CLUSTERSCOPE_BENCH_MPI_RANKS", 1024);
        spec.steps = 3;
        spec.allReducesPerStep = 4;
        spec.tensorParallel = 8;
        spec.paddingBytesPerRank = std::size_t(envInt("CLUSTERSCOPE_BENCH_MPI_BYTES_PER_RANK", 1500000));
        spec.stragglers = { { 777, 1500 } };
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        std::string error;
        const auto t0 = std::chrono::steady_clock::now();
        const auto files = clusterscope::testing::writeRunTraces(spec, dir.path().toStdString(), error);
        QVERIFY2(!files.empty(), error.c_str());
        double bytes = 0;
        for (const auto& f : files)
            bytes += double(QFileInfo(QString::fromStdString(f)).size());
        const double generate = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

        importWith(1, dir.path()); // warms the page cache: both runs read from memory
        const Outcome one = importWith(1, dir.path());
        QVERIFY2(one.ok, qPrintable(one.err));
        const Outcome two = importWith(2, dir.path());
        QVERIFY2(two.ok, qPrintable(two.err));

        const QString peak = QStringLiteral("peak memory per process \\(MB\\):");
        const auto peaks = [&](const QString& err) {
            const auto m = QRegularExpression(peak + QStringLiteral("([ 0-9]+)")).match(err);
            return m.hasMatch() ? m.captured(1).trimmed() : QStringLiteral("?");
        };
        const double summaryMb = number(one.err, QStringLiteral("gathered ([0-9.e+]+) MB"));
        const double parseOne = number(one.err, QStringLiteral("in ([0-9.e+]+) s \\(slowest process\\)"));
        const double parseTwo = number(two.err, QStringLiteral("in ([0-9.e+]+) s \\(slowest process\\)"));
        std::printf("\nDistributed import benchmark: %d rank files, %.2f GB of Kineto JSON (generated in %.1f s)\n",
            spec.ranks, bytes / 1e9, generate);
        std::printf("  mpirun -np 1 : %7.2f s wall, parse+reduce %6.2f s, peak MB per process: %s\n", one.seconds,
            parseOne, qPrintable(peaks(one.err)));
        std::printf("  mpirun -np 2 : %7.2f s wall, parse+reduce %6.2f s, peak MB per process: %s\n", two.seconds,
            parseTwo, qPrintable(peaks(two.err)));
        std::printf("  speed-up 1 -> 2 processes: %.2fx wall, %.2fx parse+reduce\n", one.seconds / two.seconds,
            parseOne / parseTwo);
        std::printf("  parse+reduce cost: %.2f s per GB per process (%.0f MB/s)\n", parseOne / (bytes / 1e9),
            bytes / 1e6 / parseOne);
        std::printf("  rank summaries gathered: %.2f MB = %.1f kB per rank (%.5f of the input)\n", summaryMb,
            summaryMb * 1e3 / spec.ranks, summaryMb * 1e6 / bytes);
        std::fflush(stdout);
    }
};

QTEST_GUILESS_MAIN(BenchMpiImport)
#include "bench_mpiimport.moc"
