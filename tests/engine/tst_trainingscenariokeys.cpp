// Scenario keys added for the training model: model.gated_mlp, training.gpu_hour_usd and
// parallelism.placement_order (defaults, round trip, errors naming the JSON pointer).

#include "engine/scenario/scenariojson.h"
#include "resources/embeddedresources.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace clusterscope::engine;
using nlohmann::json;

class TestTrainingScenarioKeys : public QObject {
    Q_OBJECT

    static json base()
    {
        return json::parse(std::string(clusterscope::resources::embeddedFile("examples/llama3-70b-1024-h100.json")));
    }

private Q_SLOTS:
    void defaults()
    {
        auto s = parseScenarioJson(base().dump(), "a.json");
        QVERIFY(s.isOk());
        QVERIFY(s->model.gatedMlp); // 28672 != 4 x 8192: SwiGLU
        QCOMPARE(s->training.gpuHourUsd, 0.0);
        QCOMPARE(s->parallelism->placementOrder, std::string("tp-cp-dp-pp"));
        json gpt = base();
        gpt["model"]["ffn_hidden"] = 4 * 8192;
        QVERIFY(!parseScenarioJson(gpt.dump(), "g.json")->model.gatedMlp);
    }

    void roundTrip_data()
    {
        QTest::addColumn<bool>("gated");
        QTest::addColumn<double>("price");
        QTest::addColumn<QString>("order");
        QTest::addRow("defaults") << true << 0.0 << "tp-cp-dp-pp";
        QTest::addRow("explicit") << false << 2.5 << "dp-tp-cp-pp";
    }
    void roundTrip()
    {
        QFETCH(bool, gated);
        QFETCH(double, price);
        QFETCH(QString, order);
        json j = base();
        j["model"]["gated_mlp"] = gated;
        j["training"]["gpu_hour_usd"] = price;
        j["parallelism"]["placement_order"] = order.toStdString();
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QCOMPARE(first->model.gatedMlp, gated);
        QCOMPARE(first->training.gpuHourUsd, price);
        QCOMPARE(first->parallelism->placementOrder, order.toStdString());
        auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
    }

    void computeCalibration()
    {
        json j = base();
        j["calibration"] = { { "compute",
            { { "gemm_peak_fraction", 0.6 }, { "flash_attention", false },
                { "overlap_interference_fraction", 0.0 } } } };
        auto first = parseScenarioJson(j.dump(), "a.json");
        QVERIFY2(first.isOk(), first.message().c_str());
        QCOMPARE(*first->computeCalibration.gemmPeakFraction, 0.6);
        QCOMPARE(*first->computeCalibration.flashAttention, false);
        QCOMPARE(*first->computeCalibration.overlapInterferenceFraction, 0.0);
        QVERIFY(!first->computeCalibration.gemmHalfDimension);
        auto second = parseScenarioJson(scenarioToJson(*first), "b.json");
        QVERIFY2(second.isOk(), second.message().c_str());
        QVERIFY(*first == *second);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("message");
        QTest::addRow("gated_mlp type") << "/model/gated_mlp"
                                        << "\"yes\""
                                        << "a.json: /model/gated_mlp: expected";
        QTest::addRow("negative price") << "/training/gpu_hour_usd"
                                        << "-1"
                                        << "a.json: /training/gpu_hour_usd:";
        QTest::addRow("order missing pp") << "/parallelism/placement_order"
                                          << "\"tp-cp-dp\""
                                          << "a.json: /parallelism/placement_order: expected the dimensions";
        QTest::addRow("order repeated") << "/parallelism/placement_order"
                                        << "\"tp-tp-dp-pp\""
                                        << "a.json: /parallelism/placement_order: expected the dimensions";
        QTest::addRow("calibration fraction") << "/calibration/compute/gemm_peak_fraction"
                                              << "1.5"
                                              << "a.json: /calibration/compute/gemm_peak_fraction:";
        QTest::addRow("calibration unknown key") << "/calibration/compute/gemm_peak"
                                                 << "0.5"
                                                 << "a.json: /calibration/compute/gemm_peak:";
        QTest::addRow("calibration unknown section") << "/calibration/computer"
                                                     << "{}"
                                                     << "a.json: /calibration/computer:";
        QTest::addRow("order unknown") << "/parallelism/placement_order"
                                       << "\"tp-cp-dp-ep\""
                                       << "a.json: /parallelism/placement_order: expected the dimensions";
    }
    void errors()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, value);
        QFETCH(QString, message);
        json j = base();
        j[json::json_pointer(pointer.toStdString())] = json::parse(value.toStdString());
        auto s = parseScenarioJson(j.dump(), "a.json");
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().rfind(message.toStdString(), 0) == 0, s.message().c_str());
    }
};

QTEST_GUILESS_MAIN(TestTrainingScenarioKeys)
#include "tst_trainingscenariokeys.moc"
