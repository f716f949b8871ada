#include "app/gui/gettingstarted.h"

#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace clusterscope::app {

namespace {
    QString tr(const char* text) { return QCoreApplication::translate("GettingStarted", text); }
}

QString gettingStartedHtml()
{
    return tr(R"(<h2>Getting started with ClusterScope</h2>
<p>ClusterScope sizes the network of a training cluster from a <i>scenario</i> (GPUs, fabric, model,
training, parallelism), analyses it, and compares it with what real runs measured.</p>
<h3>The window</h3>
<ul>
<li><b>Scenarios</b> (left): the project's scenarios. Double-click renames, Ctrl+D duplicates, Delete removes.</li>
<li><b>Scenario</b> (right): every parameter, with its range in the tooltip. A problem is shown in red
beside the field that causes it; findings of the analysis (a fabric that cannot be built, tiers added,
little memory headroom) in amber. Every edit can be undone (Ctrl+Z) and re-evaluates in the background.</li>
<li><b>Fabric 3D</b>: switches, servers and links coloured by their utilisation over one iteration;
click anything for its details.</li>
<li><b>Traffic</b>: bytes per iteration between every pair of GPUs; filter by parallelism dimension or
link class, zoom with the wheel.</li>
<li><b>Iteration breakdown</b>: where one iteration's time goes, the current strategy beside the
fastest ones the search found.</li>
<li><b>Strategies</b>: every valid strategy ranked by its iteration time without fabric contention; the
fastest five also <i>with contention</i> (their traffic routed on the fabric: the time the other tabs
show once it is applied, as <code>clusterscope-cli search</code> prints it). Select one and <i>Apply to
scenario</i>. When the scenario's own strategy cannot run, <i>Apply the best valid strategy</i> fixes it
in one click.</li>
<li><b>Bill of materials</b>: switches, NICs, cables and optics with their prices and sources; CSV export.</li>
<li><b>Runs</b>: imported profiler traces (File &gt; Import Traces, Ctrl+T): per-rank breakdown,
stragglers, collectives with their bandwidth, timeline and measured traffic.
View &gt; Compare Run with Scenario puts a run beside the model of a scenario.</li>
</ul>
<p>File &gt; Import nccl-tests Log (or a log dropped on the window) compares a measured nccl-tests
sweep with the model size by size and stores the calibration in the project.</p>
<p>File &gt; Export Report (Ctrl+R) writes the procurement report (PDF, HTML, CSV).
View &gt; Compare Scenarios (Ctrl+K) puts two scenarios side by side.</p>
<h3>The command line</h3>
<p><code>clusterscope-cli --help</code> lists the commands; a few examples on the bundled scenarios:</p>
<pre>clusterscope-cli evaluate llama3-70b-1024-h100.json
clusterscope-cli search mixtral-8x7b-256-h200-roce.json --top 3
clusterscope-cli collective llama3-70b-1024-h100.json --op allreduce --sweep 8:8G --ranks 8
clusterscope-cli fabric gpt3-175b-1024-a100.json --bom-csv bom.csv
clusterscope-cli import-trace traces/ --compare my-cluster.json
clusterscope-cli report my.csproj --pdf report.pdf</pre>
<p>The example scenarios are installed in <code>/usr/share/clusterscope/examples/</code>
(<code>resources/examples/</code> in a source tree).</p>)");
}

void showGettingStarted(QWidget* parent)
{
    auto* dialog = new QDialog(parent);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("Getting started"));
    auto* layout = new QVBoxLayout(dialog);
    auto* browser = new QTextBrowser(dialog);
    browser->setObjectName(QStringLiteral("gettingStarted"));
    browser->setHtml(gettingStartedHtml());
    layout->addWidget(browser);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
    QObject::connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::close);
    layout->addWidget(buttons);
    dialog->resize(640, 560);
    dialog->show();
}

} // namespace clusterscope::app
