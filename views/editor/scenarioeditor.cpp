#include "views/editor/scenarioeditor.h"

#include "engine/catalog/catalog.h"
#include "engine/scenario/scenariovalidator.h"
#include "views/editor/rangespinbox.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace clusterscope::views {

using namespace clusterscope::engine;

namespace {
    QFormLayout* section(QVBoxLayout* into, const QString& title, QWidget* parent)
    {
        auto* box = new QGroupBox(title, parent);
        auto* form = new QFormLayout(box);
        form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
        // A row too wide for a laptop's dock puts its label above its field instead of widening the
        // editor past the dock (no field cut at the right edge).
        form->setRowWrapPolicy(QFormLayout::WrapLongRows);
        into->addWidget(box);
        return form;
    }

    template <typename Enum> Enum enumAt(const QComboBox* combo)
    {
        return static_cast<Enum>(std::max(0, combo->currentIndex()));
    }
} // namespace

ScenarioEditor::ScenarioEditor(const Catalog& catalog, QWidget* parent)
    : QWidget(parent)
    , m_catalog(catalog)
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* content = new QWidget(scroll);
    auto* layout = new QVBoxLayout(content);

    m_problems = new QLabel(content);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_problems);
    m_notes = new QLabel(content);
    m_notes->setWordWrap(true);
    m_notes->setTextFormat(Qt::RichText);
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_notes->hide();
    layout->addWidget(m_notes);

    QStringList gpuIds;
    for (const GpuModel& g : catalog.gpus())
        gpuIds << QString::fromStdString(g.id);

    QFormLayout* f = section(layout, tr("Cluster"), content);
    m_gpu = choiceField(f, QStringLiteral("/cluster/gpu"), tr("GPU"), gpuIds,
        tr("Accelerator model from the hardware catalog (peak FLOP/s, HBM, scale-up bandwidth, price)."));
    m_gpus = intField(f, QStringLiteral("/cluster/gpus"), tr("GPUs"), 1, 1 << 20,
        tr("Total accelerators in the cluster; must fill whole nodes."));
    m_gpusPerNode = intField(f, QStringLiteral("/cluster/gpus_per_node"), tr("GPUs per node"), 1, 576,
        tr("Accelerators per server (8 on HGX/DGX boards; 4 per GB200 / GB300 compute tray)."));
    m_nicGbps = choiceField(f, QStringLiteral("/cluster/nic/gbps"), tr("NIC rate"),
        { QStringLiteral("100"), QStringLiteral("200"), QStringLiteral("400"), QStringLiteral("800"),
            QStringLiteral("1600") },
        tr("Line rate of each scale-out NIC in Gb/s (HDR 200, NDR 400, XDR 800). 400 Gb/s moves 50 GB/s."));
    m_nicsPerNode = intField(f, QStringLiteral("/cluster/nic/per_node"), tr("NICs per node"), 1, 64,
        tr("Scale-out NICs per server; rail-optimized designs give each GPU its own NIC."));
    m_transport = choiceField(f, QStringLiteral("/cluster/transport"), tr("Transport"),
        { QStringLiteral("infiniband"), QStringLiteral("roce") }, tr("InfiniBand or RoCEv2 (Ethernet)."));
    m_net = choiceField(f, QStringLiteral("/cluster/nic/net"), tr("NCCL net"), {},
        tr("How NCCL moves bytes between nodes: its built-in IB verbs transport, or a net plugin "
           "(GPUDirect-TCPX/TCPXO, "
           "gIB, sockets) with the algorithms, protocols and per-call cost it runs with (catalog nics.json)."));
    {
        const QSignalBlocker block(m_net);
        // Short enough for the editor's column on a 1366 px screen; the tooltip says it whole.
        m_net->addItem(tr("default (verbs)"), QString());
        m_net->setItemData(0, tr("NCCL's default: its built-in IB/RoCE verbs transport"), Qt::ToolTipRole);
        for (const NetTransportModel& t : catalog.netTransports()) {
            m_net->addItem(QString::fromStdString(t.id), QString::fromStdString(t.id));
            m_net->setItemData(m_net->count() - 1, QString::fromStdString(t.name), Qt::ToolTipRole);
        }
    }

    f = section(layout, tr("Fabric"), content);
    m_fabricType = choiceField(f, QStringLiteral("/cluster/fabric/type"), tr("Topology"),
        { QStringLiteral("fat-tree"), QStringLiteral("leaf-spine"), QStringLiteral("rail-optimized"),
            QStringLiteral("dragonfly"), QStringLiteral("torus") },
        tr("Fat-tree and leaf-spine are Clos networks; rail-optimized cables NIC k of every node to leaf k "
           "(DGX SuperPOD); dragonfly groups routers; torus is a direct network."));
    m_radix = intField(f, QStringLiteral("/cluster/fabric/switch_radix"), tr("Switch radix"), 4, 1024,
        tr("Ports per switch at the NIC rate (64 for a 51.2 Tb/s NDR switch)."), tr(" ports"));
    m_tiers = intField(f, QStringLiteral("/cluster/fabric/tiers"), tr("Tiers"), 1, 3,
        tr("Switching tiers above the nodes. When this many tiers of the chosen radix cannot connect every "
           "node, the fabric is built with more and the editor says so."));
    m_oversub = realField(f, QStringLiteral("/cluster/fabric/oversubscription"), tr("Oversubscription"), 1.0, 64.0, 2,
        tr("Leaf down:up port ratio; 1 is non-blocking, 3 means 3:1 (the usual cost trade-off)."), tr(" : 1"));
    m_planes = intField(f, QStringLiteral("/cluster/fabric/planes"), tr("Planes"), 1, 8,
        tr("Independent parallel fabrics; each NIC's bandwidth is split over them."));
    m_dualTor = boolField(f, QStringLiteral("/cluster/fabric/dual_tor"), tr("Dual ToR"),
        tr("Each NIC port dual-homed to a pair of leaves (Alibaba HPN style)."));
    m_dfP = intField(f, QStringLiteral("/cluster/fabric/p"), tr("Dragonfly p"), 1, 512, tr("Hosts per router."));
    m_dfA = intField(f, QStringLiteral("/cluster/fabric/a"), tr("Dragonfly a"), 1, 512, tr("Routers per group."));
    m_dfH = intField(f, QStringLiteral("/cluster/fabric/h"), tr("Dragonfly h"), 1, 512, tr("Global links per router."));
    m_torusDims = new QLineEdit(content);
    m_torusDims->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("^\\d+(x\\d+){1,2}$")), m_torusDims));
    m_torusDims->setToolTip(tr("Nodes per torus dimension, e.g. 8x8x2; must multiply to the node count."));
    f->addRow(tr("Torus dims"), m_torusDims);
    register_(QStringLiteral("/cluster/fabric/dims"), tr("Torus dims"), m_torusDims);
    connect(m_torusDims, &QLineEdit::editingFinished, this, [this] { emitEdit(tr("Torus dims")); });

    f = section(layout, tr("Model"), content);
    m_layers = intField(f, QStringLiteral("/model/layers"), tr("Layers"), 1, 100000, tr("Transformer layers."));
    m_hidden = intField(f, QStringLiteral("/model/hidden"), tr("Hidden size"), 1, 1 << 20, tr("Model dimension h."));
    m_heads = intField(f, QStringLiteral("/model/heads"), tr("Attention heads"), 1, 4096, tr("Query heads a."));
    m_kvHeads = intField(f, QStringLiteral("/model/kv_heads"), tr("KV heads"), 1, 4096,
        tr("Key/value heads; fewer than the query heads is grouped-query attention."));
    m_ffn = intField(f, QStringLiteral("/model/ffn_hidden"), tr("FFN size"), 1, 1 << 22, tr("Hidden size of the MLP."));
    m_vocab
        = intField(f, QStringLiteral("/model/vocab"), tr("Vocabulary"), 1, 1 << 24, tr("Tokens in the vocabulary."));
    m_seqLen = intField(f, QStringLiteral("/model/seq_len"), tr("Sequence length"), 1, 1 << 24,
        tr("Tokens per sequence."), tr(" tokens"));
    m_moe = boolField(
        f, QStringLiteral("/model/moe"), tr("Mixture of experts"), tr("Replace the MLP by routed experts."));
    m_experts = intField(f, QStringLiteral("/model/moe/experts"), tr("Experts"), 1, 4096, tr("Experts per MoE layer."));
    m_topK
        = intField(f, QStringLiteral("/model/moe/top_k"), tr("Top-k"), 1, 64, tr("Experts each token is routed to."));
    m_expertFfn = intField(f, QStringLiteral("/model/moe/expert_ffn_hidden"), tr("Expert FFN size"), 1, 1 << 22,
        tr("Hidden size of each expert's MLP."));
    m_dropout = boolField(f, QStringLiteral("/model/dropout"), tr("Dropout"),
        tr("Hidden and attention dropout on: their masks are kept for the backward. Off for recipes that "
           "train with dropout 0 (Llama 3, Qwen3, DeepSeek-V3 in Megatron-Bridge)."));

    f = section(layout, tr("Training"), content);
    m_globalBatch = intField(f, QStringLiteral("/training/global_batch"), tr("Global batch"), 1, 1 << 24,
        tr("Sequences per optimizer step."), tr(" seq"));
    m_microBatch = intField(f, QStringLiteral("/training/micro_batch"), tr("Micro-batch"), 1, 1 << 16,
        tr("Sequences per micro-batch; the rest is gradient accumulation."), tr(" seq"));
    m_dtype = choiceField(f, QStringLiteral("/training/dtype"), tr("Precision"),
        { QStringLiteral("bf16"), QStringLiteral("fp16"), QStringLiteral("fp8"), QStringLiteral("mxfp8"),
            QStringLiteral("nvfp4") },
        tr("GEMM precision: bf16 / fp16, fp8 with per-tensor scales (Hopper and later), MXFP8 with one "
           "scale per 32 elements or NVFP4 (4-bit, one scale per 16 elements; both Blackwell only). "
           "Attention and the output layer stay 16-bit."));
    m_recompute = choiceField(f, QStringLiteral("/training/recompute"), tr("Recomputation"),
        { QStringLiteral("none"), QStringLiteral("selective"), QStringLiteral("full") },
        tr("Activation recomputation: trades compute for memory."));
    m_recomputeMethod = choiceField(f, QStringLiteral("/training/recompute_method"), tr("Full recomputation"),
        { QStringLiteral("uniform"), QStringLiteral("block") },
        tr("How full recomputation checkpoints (Megatron-Core --recompute-method): uniform recomputes every layer, "
           "keeping the input of each unit of the layers below; block recomputes only the first layers below of "
           "each pipeline chunk and keeps the others' activations. Full recomputation only."));
    m_recomputeLayers
        = intField(f, QStringLiteral("/training/recompute_num_layers"), tr("Recomputed layers"), 1, 100000,
            tr("Megatron-Core --recompute-num-layers: layers per checkpointed unit (uniform) or layers recomputed per "
               "pipeline chunk (block). Full recomputation only."));
    m_tokens = realField(f, QStringLiteral("/training/tokens"), tr("Token budget"), 0, 1e6, 3,
        tr("Tokens to train on, in trillions (0 = not stated)."), tr(" T"));
    m_offloadLayers
        = intField(f, QStringLiteral("/training/activation_offload_layers"), tr("Offloaded layers"), 0, 100000,
            tr("Layers per pipeline stage whose activations wait in host memory between forward and backward "
               "(Megatron-Core --cpu-offloading-num-layers); fewer than the stage's layers."));
    m_fp8ParamGather = boolField(f, QStringLiteral("/training/fp8_param_gather"), tr("fp8 primary weights"),
        tr("Weights and their gather buffers in fp8 (Megatron-Core --fp8-param-gather): 1 byte per parameter "
           "with per-tensor scales, 2 + 2/32 bytes with MXFP8 (both copies with their scales); needs fp8 or "
           "mxfp8 precision."));
    m_fp4ParamGather = boolField(f, QStringLiteral("/training/fp4_param_gather"), tr("NVFP4 primary weights"),
        tr("Weights in NVFP4, their row-wise and column-wise copies with scales, 1.125 bytes per parameter, "
           "gathered in NVFP4 (Megatron-Core --fp4-param-gather); needs nvfp4 precision."));
    m_bf16Start = intField(f, QStringLiteral("/training/bf16_layers_at_start"), tr("BF16 first layers"), 0, 100000,
        tr("Layers at the start of the stack kept in BF16 under fp8, MXFP8 or NVFP4 (Megatron-Core "
           "--first-last-layers-bf16 --num-layers-at-start-in-bf16; a hybrid stack counts its blocks); at most "
           "the first pipeline stage's layers. Fp8, MXFP8 and NVFP4 only."));
    m_bf16End = intField(f, QStringLiteral("/training/bf16_layers_at_end"), tr("BF16 last layers"), 0, 100000,
        tr("Layers at the end of the stack kept in BF16 under fp8, MXFP8 or NVFP4 (Megatron-Core "
           "--num-layers-at-end-in-bf16); at most the last pipeline stage's layers."));
    m_graphAttention = boolField(f, QStringLiteral("/training/cuda_graph_scope/attn"), tr("CUDA graph: attention"),
        tr("Replay the attention block as a captured CUDA graph (--cuda-graph-scope attn)."));
    m_graphRouter = boolField(f, QStringLiteral("/training/cuda_graph_scope/moe_router"), tr("CUDA graph: MoE router"),
        tr("Replay the MoE router as a CUDA graph (moe_router)."));
    m_graphPreprocess
        = boolField(f, QStringLiteral("/training/cuda_graph_scope/moe_preprocess"), tr("CUDA graph: MoE preprocess"),
            tr("Replay the dispatcher's preprocessing as a CUDA graph (moe_preprocess)."));
    m_graphFullLayer
        = boolField(f, QStringLiteral("/training/cuda_graph_scope/full_layer"), tr("CUDA graph: whole layer"),
            tr("Replay each whole layer as a CUDA graph (full_layer); with MoE only when tokens are dropped to a "
               "capacity factor (static shapes)."));
    m_fields[QStringLiteral("/training/cuda_graph_scope")] = m_graphAttention;

    f = section(layout, tr("Parallelism"), content);
    m_autoParallel = boolField(f, QStringLiteral("#search-chooses-parallelism"), tr("Let the search choose"),
        tr("When checked the scenario has no fixed strategy: evaluation uses the best one the search finds."));
    m_tp = intField(f, QStringLiteral("/parallelism/tp"), tr("Tensor (TP)"), 1, 1024,
        tr("Tensor-parallel ranks, usually inside one NVLink domain."));
    m_pp = intField(f, QStringLiteral("/parallelism/pp"), tr("Pipeline (PP)"), 1, 1024, tr("Pipeline stages."));
    m_dp = intField(f, QStringLiteral("/parallelism/dp"), tr("Data (DP)"), 1, 1 << 20, tr("Data-parallel replicas."));
    m_cp = intField(f, QStringLiteral("/parallelism/cp"), tr("Context (CP)"), 1, 1024,
        tr("Context-parallel ranks splitting the sequence."));
    m_ep = intField(
        f, QStringLiteral("/parallelism/ep"), tr("Expert (EP)"), 1, 4096, tr("Expert-parallel ranks (MoE only)."));
    m_etp = intField(f, QStringLiteral("/parallelism/etp"), tr("Expert tensor (ETP)"), 0, 1024,
        tr("Tensor-parallel ranks of each expert (MoE only); 0 = as TP. Different from TP, the experts fold over "
           "TP x CP x DP as ETP x EP x expert-DP (MoE parallel folding), so EP may exceed DP x CP."));
    m_etp->setSpecialValueText(tr("as TP"));
    m_vpp = intField(f, QStringLiteral("/parallelism/vpp"), tr("Virtual stages"), 1, 128,
        tr("Interleaved pipeline chunks per GPU."));
    m_vppGroup = intField(f, QStringLiteral("/parallelism/vpp_microbatch_group"), tr("Micro-batch group"), 0, 1 << 20,
        tr("Micro-batches the interleaved schedule runs on one virtual stage before the next (Megatron-Core "
           "--microbatch-group-size-per-virtual-pipeline-stage); 0 = PP, Megatron's default. A larger group lets "
           "micro-batches that are not a multiple of PP interleave and keeps more activations in flight."));
    m_vppGroup->setSpecialValueText(tr("as PP"));
    m_zero = intField(f, QStringLiteral("/parallelism/zero"), tr("ZeRO stage"), 0, 3,
        tr("0 none, 1 optimizer, 2 + gradients, 3 + parameters (FSDP)."));
    m_sp = boolField(f, QStringLiteral("/parallelism/sequence_parallel"), tr("Sequence parallel"),
        tr("Megatron sequence parallelism with TP."));
    m_schedule = choiceField(f, QStringLiteral("/parallelism/pipeline_schedule"), tr("Pipeline schedule"),
        { QStringLiteral("1f1b"), QStringLiteral("gpipe"), QStringLiteral("interleaved") }, tr("Pipeline schedule."));
    m_cpKind = choiceField(f, QStringLiteral("/parallelism/cp_kind"), tr("CP kind"),
        { QStringLiteral("ring"), QStringLiteral("ulysses") }, tr("Ring attention or Ulysses all-to-all."));

    f = section(layout, tr("Communication"), content);
    m_compression = choiceField(f, QStringLiteral("/communication/compression/method"), tr("Gradient compression"),
        { QStringLiteral("none"), QStringLiteral("topk"), QStringLiteral("int8"), QStringLiteral("fp8"),
            QStringLiteral("onebit") },
        tr("Top-k sparsification, 8-bit quantization or 1-bit (with error feedback)."));
    m_topkFraction = realField(f, QStringLiteral("/communication/compression/topk_fraction"), tr("Top-k fraction"),
        0.000001, 1.0, 4, tr("Share of gradient elements sent by top-k."));
    m_dpOverlap = boolField(f, QStringLiteral("/communication/dp_overlap"), tr("Overlap DP with backward"),
        tr("Bucketed gradient synchronisation during the backward pass."));
    m_tpOverlap = realField(f, QStringLiteral("/communication/tp_overlap_fraction"), tr("TP overlap"), 0, 1, 2,
        tr("Share of tensor-parallel communication hidden behind compute."));
    m_algorithm = choiceField(f, QStringLiteral("/communication/algorithm"), tr("Collective algorithm"),
        { QStringLiteral("auto"), QStringLiteral("ring"), QStringLiteral("tree"), QStringLiteral("nvls"),
            QStringLiteral("nvlstree"), QStringLiteral("collnet"), QStringLiteral("pat"),
            QStringLiteral("hierarchical"), QStringLiteral("direct") },
        tr("Force a collective algorithm, or let the model choose as NCCL's tuner does."));
    m_routing = choiceField(f, QStringLiteral("/communication/routing"), tr("Routing"),
        { QStringLiteral("ecmp"), QStringLiteral("adaptive"), QStringLiteral("spray") },
        tr("Static ECMP hashing, adaptive routing or packet spraying."));
    m_lossRate = realField(f, QStringLiteral("/communication/loss_rate"), tr("Packet loss"), 0, 0.5, 6,
        tr("Packet loss probability on the fabric (go-back-N retransmission cost)."));
    m_moeA2aOverlap = boolField(f, QStringLiteral("/communication/moe_a2a_overlap"), tr("Overlap MoE all-to-all"),
        tr("Megatron-Core's combined-1F1B schedule hides one micro-batch's expert all-to-all behind another's "
           "compute (--overlap-moe-expert-parallel-comm); costs host time per MoE layer with dropless routing."));

    // Problems about a whole section point at its first field.
    m_fields[QStringLiteral("/cluster/fabric")] = m_fabricType;
    m_fields[QStringLiteral("/parallelism")] = m_dp;
    layout->addStretch(1);
    scroll->setWidget(content);
    // Readable by default: labels and fields side by side without scrolling sideways.
    setMinimumWidth(300);
    outer->addWidget(scroll);
}

void ScenarioEditor::register_(const QString& pointer, const QString& label, QWidget* w)
{
    m_fields[pointer] = w;
    m_labels[w] = label;
    w->setObjectName(pointer);
}

QSpinBox* ScenarioEditor::intField(QFormLayout* form, const QString& pointer, const QString& label, int min, int max,
    const QString& tip, const QString& suffix)
{
    auto* w = new RangeSpinBox(label, form->parentWidget());
    w->setRange(min, max);
    w->setSuffix(suffix);
    const QLocale l;
    w->setToolTip(tip + QLatin1Char(' ') + tr("Range %1 to %2%3.").arg(l.toString(min), l.toString(max), suffix));
    connect(w, &RangeSpinBox::inputRejected, this, &ScenarioEditor::inputRejected);
    w->setKeyboardTracking(false);
    w->setGroupSeparatorShown(true);
    form->addRow(label, w);
    register_(pointer, label, w);
    connect(w, &QSpinBox::valueChanged, this, [this, label] { emitEdit(label); });
    return w;
}

QDoubleSpinBox* ScenarioEditor::realField(QFormLayout* form, const QString& pointer, const QString& label, double min,
    double max, int decimals, const QString& tip, const QString& suffix)
{
    auto* w = new RangeDoubleSpinBox(label, form->parentWidget());
    w->setDecimals(decimals);
    w->setRange(min, max);
    w->setSuffix(suffix);
    const QLocale l;
    w->setToolTip(tip + QLatin1Char(' ')
        + tr("Range %1 to %2%3, at most %4 decimals.")
              .arg(l.toString(min, 'g', 6), l.toString(max, 'g', 6), suffix)
              .arg(decimals));
    connect(w, &RangeDoubleSpinBox::inputRejected, this, &ScenarioEditor::inputRejected);
    w->setKeyboardTracking(false);
    form->addRow(label, w);
    register_(pointer, label, w);
    connect(w, &QDoubleSpinBox::valueChanged, this, [this, label] { emitEdit(label); });
    return w;
}

QComboBox* ScenarioEditor::choiceField(
    QFormLayout* form, const QString& pointer, const QString& label, const QStringList& items, const QString& tip)
{
    auto* w = new QComboBox(form->parentWidget());
    // As wide as the column, not as the longest item (long items elide; the list shows them whole):
    // one long choice must not widen the editor past a laptop's dock.
    w->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    w->setMinimumContentsLength(8);
    w->addItems(items);
    w->setToolTip(tip);
    form->addRow(label, w);
    register_(pointer, label, w);
    connect(w, &QComboBox::currentIndexChanged, this, [this, label] { emitEdit(label); });
    return w;
}

QCheckBox* ScenarioEditor::boolField(
    QFormLayout* form, const QString& pointer, const QString& label, const QString& tip)
{
    auto* w = new QCheckBox(form->parentWidget());
    w->setToolTip(tip);
    form->addRow(label, w);
    register_(pointer, label, w);
    connect(w, &QCheckBox::toggled, this, [this, label] { emitEdit(label); });
    return w;
}

QWidget* ScenarioEditor::fieldFor(const QString& pointer) const
{
    const auto it = m_fields.find(pointer);
    return it == m_fields.end() ? nullptr : it->second;
}

QString ScenarioEditor::problemsText() const { return m_problems->text(); }

QString ScenarioEditor::notesText() const
{
    QStringList lines;
    for (const EditorNote& n : m_analysisNotes)
        lines << n.message;
    return lines.join(QLatin1Char('\n'));
}

void ScenarioEditor::setAnalysisNotes(const QList<EditorNote>& notes)
{
    m_analysisNotes = notes;
    showProblems(m_issues);
}

void ScenarioEditor::setScenario(const Scenario& s, const std::vector<ValidationIssue>& issues)
{
    m_loading = true;
    m_base = s;
    m_issues = issues;
    m_analysisNotes.clear();
    const auto setCombo = [](QComboBox* c, const QString& text) {
        int i = c->findText(text);
        if (i < 0) {
            c->addItem(text);
            i = c->count() - 1;
        }
        c->setCurrentIndex(i);
    };
    setCombo(m_gpu, QString::fromStdString(s.cluster.gpu));
    m_gpus->setValue(s.cluster.gpus);
    m_gpusPerNode->setValue(s.cluster.gpusPerNode);
    setCombo(m_nicGbps, QString::number(s.cluster.nic.gbps));
    m_nicsPerNode->setValue(s.cluster.nic.perNode);
    m_transport->setCurrentIndex(int(s.cluster.transport));
    {
        const QString net = QString::fromStdString(s.cluster.nic.net);
        int i = m_net->findData(net);
        if (i < 0) { // an id this catalog does not know: keep it, the validator names it
            m_net->addItem(net, net);
            i = m_net->count() - 1;
        }
        m_net->setCurrentIndex(i);
    }
    const FabricSpec& fab = s.cluster.fabric;
    m_fabricType->setCurrentIndex(int(fab.type));
    m_radix->setValue(fab.switchRadix);
    m_tiers->setValue(fab.tiers);
    m_oversub->setValue(fab.oversubscription);
    m_planes->setValue(fab.planes);
    m_dualTor->setChecked(fab.dualTor);
    m_dfP->setValue(std::max(1, fab.dragonflyP));
    m_dfA->setValue(std::max(1, fab.dragonflyA));
    m_dfH->setValue(std::max(1, fab.dragonflyH));
    QStringList dims;
    for (int d : fab.torusDims)
        dims << QString::number(d);
    m_torusDims->setText(dims.join(QLatin1Char('x')));
    const ModelSpec& m = s.model;
    m_layers->setValue(m.layers);
    // A hybrid stack's layers are its pattern's symbols (model.hybrid_pattern), kept as loaded.
    m_layers->setEnabled(m.hybridPattern.empty());
    m_hidden->setValue(m.hidden);
    m_heads->setValue(m.heads);
    m_kvHeads->setValue(m.kvHeads);
    m_ffn->setValue(m.ffnHidden);
    m_vocab->setValue(m.vocab);
    m_seqLen->setValue(m.seqLen);
    m_moe->setChecked(m.moe.has_value());
    const MoeSpec moe = m.moe.value_or(MoeSpec { 8, 2, m.ffnHidden });
    m_experts->setValue(moe.experts);
    m_topK->setValue(moe.topK);
    m_expertFfn->setValue(moe.expertFfnHidden);
    m_dropout->setChecked(m.dropout);
    const TrainingSpec& t = s.training;
    m_globalBatch->setValue(t.globalBatch);
    m_microBatch->setValue(t.microBatch);
    m_dtype->setCurrentIndex(int(t.dtype));
    m_recompute->setCurrentIndex(int(t.recompute));
    m_recomputeMethod->setCurrentIndex(int(t.recomputeMethod));
    m_recomputeLayers->setValue(t.recomputeNumLayers);
    m_tokens->setValue(t.tokens / 1e12);
    m_offloadLayers->setValue(t.activationOffloadLayers);
    m_fp8ParamGather->setChecked(t.fp8ParamGather);
    m_fp4ParamGather->setChecked(t.fp4ParamGather);
    m_bf16Start->setValue(t.bf16LayersAtStart);
    m_bf16End->setValue(t.bf16LayersAtEnd);
    m_graphAttention->setChecked(t.cudaGraphScope & CudaGraphAttention);
    m_graphRouter->setChecked(t.cudaGraphScope & CudaGraphMoeRouter);
    m_graphPreprocess->setChecked(t.cudaGraphScope & CudaGraphMoePreprocess);
    m_graphFullLayer->setChecked(t.cudaGraphScope & CudaGraphFullLayer);
    m_autoParallel->setChecked(!s.parallelism.has_value());
    const ParallelismSpec p = s.parallelism.value_or(ParallelismSpec { 1, 1, s.cluster.gpus });
    m_tp->setValue(p.tp);
    m_pp->setValue(p.pp);
    m_dp->setValue(p.dp);
    m_cp->setValue(p.cp);
    m_ep->setValue(p.ep);
    m_etp->setValue(p.etp);
    m_vpp->setValue(p.vpp);
    m_vppGroup->setValue(p.vppMicrobatchGroup);
    m_zero->setValue(p.zero);
    m_sp->setChecked(p.sequenceParallel);
    m_schedule->setCurrentIndex(int(p.schedule));
    m_cpKind->setCurrentIndex(int(p.cpKind));
    const CommunicationSpec& c = s.communication;
    m_compression->setCurrentIndex(int(c.compression.method));
    m_topkFraction->setValue(c.compression.topkFraction);
    m_dpOverlap->setChecked(c.dpOverlap);
    m_tpOverlap->setValue(c.tpOverlapFraction);
    setCombo(m_algorithm, QString::fromStdString(c.algorithm));
    m_routing->setCurrentIndex(int(c.routing));
    m_lossRate->setValue(c.lossRate);
    m_moeA2aOverlap->setChecked(c.moeA2aOverlap);
    m_loading = false;
    updateEnabled();
    showProblems(issues);
}

Scenario ScenarioEditor::scenario() const
{
    Scenario s = m_base;
    s.cluster.gpu = m_gpu->currentText().toStdString();
    s.cluster.gpus = m_gpus->value();
    s.cluster.gpusPerNode = m_gpusPerNode->value();
    s.cluster.nic.gbps = m_nicGbps->currentText().toDouble();
    s.cluster.nic.perNode = m_nicsPerNode->value();
    s.cluster.transport = enumAt<Transport>(m_transport);
    s.cluster.nic.net = m_net->currentData().toString().toStdString();
    FabricSpec& fab = s.cluster.fabric;
    fab.type = enumAt<FabricType>(m_fabricType);
    fab.switchRadix = m_radix->value();
    fab.tiers = m_tiers->value();
    fab.oversubscription = m_oversub->value();
    fab.planes = m_planes->value();
    fab.dualTor = m_dualTor->isChecked();
    const bool dragonfly = fab.type == FabricType::Dragonfly;
    fab.dragonflyP = dragonfly ? m_dfP->value() : 0;
    fab.dragonflyA = dragonfly ? m_dfA->value() : 0;
    fab.dragonflyH = dragonfly ? m_dfH->value() : 0;
    fab.torusDims.clear();
    if (fab.type == FabricType::Torus)
        for (const QString& d : m_torusDims->text().split(QLatin1Char('x'), Qt::SkipEmptyParts))
            fab.torusDims.push_back(d.toInt());
    ModelSpec& m = s.model;
    m.layers = m_layers->value();
    m.hidden = m_hidden->value();
    m.heads = m_heads->value();
    m.kvHeads = m_kvHeads->value();
    m.ffnHidden = m_ffn->value();
    m.vocab = m_vocab->value();
    m.seqLen = m_seqLen->value();
    if (m_moe->isChecked()) {
        // The keys the editor has no field for (shared experts, dense layers, capacity factor, load
        // imbalance) are kept: an edit of another field must not change the model.
        MoeSpec moe = m.moe.value_or(MoeSpec {});
        moe.experts = m_experts->value();
        moe.topK = m_topK->value();
        moe.expertFfnHidden = m_expertFfn->value();
        m.moe = moe;
    } else
        m.moe.reset();
    m.dropout = m_dropout->isChecked();
    TrainingSpec& t = s.training;
    t.globalBatch = m_globalBatch->value();
    t.microBatch = m_microBatch->value();
    t.dtype = enumAt<DType>(m_dtype);
    t.recompute = enumAt<Recompute>(m_recompute);
    // Method and layers apply under full recomputation only (the writer drops them otherwise).
    t.recomputeMethod = enumAt<RecomputeMethod>(m_recomputeMethod);
    t.recomputeNumLayers = m_recomputeLayers->value();
    if (t.recompute != Recompute::Full) {
        t.recomputeMethod = RecomputeMethod::Uniform;
        t.recomputeNumLayers = 1;
    }
    t.tokens = m_tokens->value() * 1e12;
    t.activationOffloadLayers = m_offloadLayers->value();
    t.fp8ParamGather = m_fp8ParamGather->isChecked();
    t.fp4ParamGather = m_fp4ParamGather->isChecked();
    t.bf16LayersAtStart = m_bf16Start->value();
    t.bf16LayersAtEnd = m_bf16End->value();
    // The Mamba scope has no field of its own (it applies to hybrid stacks only): it is kept.
    t.cudaGraphScope = (t.cudaGraphScope & CudaGraphMamba) | (m_graphAttention->isChecked() ? CudaGraphAttention : 0u)
        | (m_graphRouter->isChecked() ? CudaGraphMoeRouter : 0u)
        | (m_graphPreprocess->isChecked() ? CudaGraphMoePreprocess : 0u)
        | (m_graphFullLayer->isChecked() ? CudaGraphFullLayer : 0u);
    if (m_autoParallel->isChecked()) {
        s.parallelism.reset();
    } else {
        // The keys the editor has no field for (placement order, first / last stage layers) are kept.
        ParallelismSpec p = s.parallelism.value_or(ParallelismSpec {});
        p.tp = m_tp->value();
        p.pp = m_pp->value();
        p.dp = m_dp->value();
        p.cp = m_cp->value();
        p.ep = m_ep->value();
        p.etp = m_etp->value();
        p.vpp = m_vpp->value();
        p.vppMicrobatchGroup = m_vppGroup->value();
        p.zero = m_zero->value();
        p.sequenceParallel = m_sp->isChecked();
        p.schedule = enumAt<PipelineSchedule>(m_schedule);
        p.cpKind = enumAt<ContextParallelKind>(m_cpKind);
        s.parallelism = p;
    }
    CommunicationSpec& c = s.communication;
    c.compression.method = enumAt<CompressionMethod>(m_compression);
    c.compression.topkFraction = m_topkFraction->value();
    c.dpOverlap = m_dpOverlap->isChecked();
    c.tpOverlapFraction = m_tpOverlap->value();
    c.algorithm = m_algorithm->currentText().toStdString();
    c.routing = enumAt<Routing>(m_routing);
    c.lossRate = m_lossRate->value();
    c.moeA2aOverlap = m_moeA2aOverlap->isChecked();
    return s;
}

void ScenarioEditor::emitEdit(const QString& what)
{
    if (m_loading)
        return;
    updateEnabled();
    const Scenario s = scenario();
    if (s == m_base)
        return;
    m_base = s;
    m_analysisNotes.clear(); // they describe the scenario before this edit
    // The document applies the edit and reloads the forms with the validation issues (setScenario).
    Q_EMIT edited(s, what);
}

void ScenarioEditor::updateEnabled()
{
    const auto type = enumAt<FabricType>(m_fabricType);
    for (QWidget* w : { static_cast<QWidget*>(m_dfP), static_cast<QWidget*>(m_dfA), static_cast<QWidget*>(m_dfH) })
        w->setEnabled(type == FabricType::Dragonfly);
    m_torusDims->setEnabled(type == FabricType::Torus);
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_experts, m_topK, m_expertFfn, m_graphRouter, m_graphPreprocess, m_moeA2aOverlap })
        w->setEnabled(m_moe->isChecked());
    const bool fixed = !m_autoParallel->isChecked();
    for (QWidget* w :
        std::initializer_list<QWidget*> { m_tp, m_pp, m_dp, m_cp, m_ep, m_vpp, m_zero, m_sp, m_schedule, m_cpKind })
        w->setEnabled(fixed);
    m_etp->setEnabled(fixed && m_moe->isChecked());
    m_vppGroup->setEnabled(fixed && (m_vpp->value() > 1 || m_vppGroup->value() > 0));
    m_topkFraction->setEnabled(enumAt<CompressionMethod>(m_compression) == CompressionMethod::TopK);
    // BF16 layers apply under a quantized precision only (a BF16 run is written without them).
    const bool quantized = isQuantized(enumAt<DType>(m_dtype));
    m_bf16Start->setEnabled(quantized);
    m_bf16End->setEnabled(quantized);
    // The recomputation method and layers apply under full recomputation only.
    const bool full = enumAt<Recompute>(m_recompute) == Recompute::Full;
    m_recomputeMethod->setEnabled(full);
    m_recomputeLayers->setEnabled(full);
}

void ScenarioEditor::showProblems(const std::vector<ValidationIssue>& issues)
{
    for (const auto& [pointer, w] : m_fields)
        w->setStyleSheet({});
    QStringList lines;
    for (const ValidationIssue& issue : issues) {
        // Highlight the field at the pointer, or the closest enclosing one that has a field.
        QString pointer = QString::fromStdString(issue.pointer);
        QWidget* w = nullptr;
        while (!pointer.isEmpty() && !(w = fieldFor(pointer)))
            pointer.truncate(pointer.lastIndexOf(QLatin1Char('/')));
        if (w)
            w->setStyleSheet(QStringLiteral("background: #fde7ea;"));
        const QString label = w ? m_labels.at(w) : QString::fromStdString(issue.pointer);
        lines << QStringLiteral("• %1: %2").arg(label, QString::fromStdString(issue.message));
    }
    // Findings of the analysis: errors highlighted like validation problems, warnings in amber.
    QStringList notes;
    for (const EditorNote& note : std::as_const(m_analysisNotes)) {
        QString pointer = note.pointer;
        QWidget* w = nullptr;
        while (!pointer.isEmpty() && !(w = fieldFor(pointer)))
            pointer.truncate(pointer.lastIndexOf(QLatin1Char('/')));
        if (w && note.error)
            w->setStyleSheet(QStringLiteral("background: #fde7ea;"));
        else if (w && w->styleSheet().isEmpty())
            w->setStyleSheet(QStringLiteral("background: #fff4d6;"));
        const QString label = w ? m_labels.at(w) : note.pointer;
        notes << QStringLiteral("<span style=\"color:%1\">• %2: %3</span>")
                     .arg(note.error ? QStringLiteral("#b00020") : QStringLiteral("#8a5a00"), label.toHtmlEscaped(),
                         note.message.toHtmlEscaped());
    }
    m_problems->setText(lines.join(QLatin1Char('\n')));
    m_problems->setVisible(!lines.isEmpty());
    m_notes->setText(notes.join(QStringLiteral("<br>")));
    m_notes->setVisible(!notes.isEmpty());
}

} // namespace clusterscope::views
