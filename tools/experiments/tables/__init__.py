"""The tables of docs/results/*.md, one module per page, from the rows of results.read().

Each page function takes the rows and returns the page's tables (and the lines between them) as
Markdown, in blocks separated by blank lines; test_experiments.py checks that every block appears
verbatim in its page. Figures quoted from the papers are constants in the page's module, next to
their table. A *_plot_data(rows, directory) function returns {file name: text}, the data files a
page's gnuplot script draws (run.py --plot-data writes them). A spec names these functions in its
`tables` and `plot_data` lists.
"""
from .dpmf_rp import dpmf_rp, dpmf_rp_plot_data, dpmf_rp_wall_time
from .fmf import fmf, fmf_comm, fmf_hfl, fmf_lfl, fmf_lfl_dropout, fmf_vfl
from .hdpmf import hdpmf
from .ldp_mf import ldp_mf
from .papers_at_scale import (papers_at_scale_claims, papers_at_scale_curve,
                              papers_at_scale_fig9, papers_at_scale_gd_step,
                              papers_at_scale_nonprivate, papers_at_scale_tuning)
from .privacy_utility import privacy_utility, privacy_utility_plot_data
from .privirec import privirec
from .scale import scale
from .synthetic_data import synthetic_data
