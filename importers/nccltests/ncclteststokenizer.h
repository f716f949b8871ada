#pragma once

// Splits nccl-tests text output into classified lines of whitespace-separated tokens. Knows nothing
// about what the tokens mean (NcclTestsParser does); it only removes launcher prefixes and sorts
// lines into comments, data rows and everything else.

#include <string_view>
#include <vector>

namespace clusterscope::importers {

enum class NcclTestsLineKind {
    Blank, ///< only whitespace
    Comment, ///< starts with '#': headers, device lines, column titles, summary
    Data, ///< first token is an unsigned integer: a result row (possibly malformed)
    Other, ///< anything else: NCCL INFO/WARN lines, launcher chatter, error messages
};

struct NcclTestsLine {
    int number = 0; ///< 1-based line number in the input
    NcclTestsLineKind kind = NcclTestsLineKind::Blank;
    std::string_view text; ///< the line without prefix and trailing CR/LF; for comments, after '#'
    std::vector<std::string_view> tokens; ///< whitespace-separated words of `text`
    bool prefixed = false; ///< a launcher prefix was removed
    bool loggerPrefixed = false; ///< a "FUNCTION(), FILE:LINE, " logger prefix was removed
};

/// True for an nccl-tests header line whose leading '#' was lost (pages whose markdown turned "# ..."
/// into a heading): the nThread line, "Using devices", a device line, the column titles, the summary.
bool isHeaderWithoutHash(const std::vector<std::string_view>& tokens);

class NcclTestsTokenizer {
public:
    /// `text` must outlive the tokenizer and the lines it returns (they view into it).
    explicit NcclTestsTokenizer(std::string_view text);

    /// Fills `line` with the next line; false at the end of the input.
    bool next(NcclTestsLine& line);

    /// Removes the prefixes a launcher or log collector puts before each line: a timestamp in ISO 8601 /
    /// RFC 3339 form (`kubectl logs --timestamps`, `docker logs -t`: "2025-06-01T10:00:00.123456789Z ";
    /// also "2025-06-01 10:00:00,123 " and either in brackets), a Docker Compose service ("worker-1  | "),
    /// then one launcher prefix: Open MPI `--tag-output` ("[1,0]<stdout>:", "[1,0]<stderr>:"), Slurm
    /// `srun --label` ("0: ", "12: "). A markdown block quote ("> ", "> > ", ">" alone) and leading blanks
    /// (a log indented in a markdown list item) before them are removed with them. Returns how many
    /// characters the prefixes span (0 if none; leading blanks alone are not a prefix).
    static std::size_t prefixLength(std::string_view line);
    /// The markdown block-quote markers at the start of `line` (a log quoted in a GitHub reply: "> ",
    /// "> > ", ">"), blanks between them included: the length up to and with the last '>' (0 if none).
    static std::size_t quoteLength(std::string_view line);
    /// The launcher prefix alone (Open MPI `--tag-output`, Slurm `srun --label`), 0 if none.
    static std::size_t launcherPrefixLength(std::string_view line);

    /// Removes the prefix a patched nccl-tests logger puts before its header and summary lines:
    /// "run(), common.cu:868, " (a function name, "(), ", a source file, ":", a line number, ", ").
    /// Returns how many characters the prefix spans (0 if none).
    static std::size_t loggerPrefixLength(std::string_view line);

    /// Splits on spaces and tabs.
    static std::vector<std::string_view> split(std::string_view text);
    /// The same into `tokens` (cleared first), reusing its capacity.
    static void split(std::string_view text, std::vector<std::string_view>& tokens);

private:
    std::string_view m_text;
    std::size_t m_offset = 0;
    int m_lineNumber = 0;
};

} // namespace clusterscope::importers
