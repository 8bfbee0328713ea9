"""Number formatting shared by the pages' tables: a mean with its spread, as each page prints it."""
import statistics


def cell(xs):
    """Mean (+- sample std and n when several), and the text of the cell."""
    if not xs:
        return None, "-"
    mean = statistics.fmean(xs)
    text = f"{mean:,.0f}" if abs(mean) >= 1000 else f"{mean:.4g}"
    if len(xs) > 1:
        text += f" ± {statistics.stdev(xs):.2g} (n={len(xs)})"
    return mean, text


def mean_std4(xs, empty="-"):
    """Mean +- sample std to 4 decimals; a single value alone."""
    if not xs:
        return empty
    if len(xs) == 1:
        return f"{xs[0]:.4f}"
    return f"{statistics.mean(xs):.4f} ± {statistics.stdev(xs):.4f}"


def stats(values):
    values = [float(v) for v in values]
    if not values:
        return None
    return (statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0,
            len(values))


def fmt_stats(s, digits=4):
    return "-" if s is None else f"{s[0]:.{digits}f} ± {s[1]:.{digits}f}"


def mean_std3(values):
    """"mean ± sample std" to 3 decimals (0 for one value), "-" for none: the cells of fmf.md."""
    if not values:
        return "-"
    std = statistics.stdev(values) if len(values) > 1 else 0.0
    return f"{statistics.fmean(values):.3f} ± {std:.3f}"


def markdown_table(header, body):
    """A Markdown table: the header cells, then one row of cells a body entry (an empty cell
    as `| |`)."""
    line = lambda cells: "|" + "".join(f" {c} |" if str(c) else " |" for c in cells)
    return "\n".join([line(header), "|" + "---|" * len(header)] + [line(row) for row in body])
