# waterfall.gp: written by roofplan from templates/waterfall.gp.in; edit and re-run `gnuplot waterfall.gp` in this directory.
# Waterfall from the speed of light to the expected step: the recommended
# plan's speed of light (top), one floating bar per effect of the expected
# step (what switching it on adds to the step with the effects above it
# on; orange adds time, teal saves it), and its expected step (bottom).
# When the report has a published run on these inputs, a second panel on
# the same scale shows the same for that run's plan, with its measured
# step as a dashed line. Data: one block per panel (see the data file's
# header).
#
# Draws PNG (1600x900), SVG and, when gnuplot has pdfcairo, PDF.

# ---- values from the report ----
title_text = 'DeepSeek-V3 on 2048 × NVIDIA H800 SXM5 80GB: expected step 15.61 s, 1.82× the speed of light'
title_font = ',22'
sub1 = 'Left, the recommended plan: tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360.'
sub2 = 'Right, the published run''s plan: tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 recompute=selective mbs=1 gbs=15360.'
sub1_font = ',15'
sub2_font = ',15'
sub3 = 'A bar: what one effect adds, with those above it on. Largest here: elementwise and memory, +2.61 s, 37% of the gap.'
footer = 'roofplan test, topo communication model, at the inputs of 1970-01-01 00:00 UTC; model data/models/deepseek-v3.ini, hardware data/hardware/h800.ini, sweep data/sweeps/default.ini'
xlabel_text = 'time per step, s'
panel1 = 'Recommended plan (ZeRO-1+PP+EP)'
panel2 = 'Published run: DeepSeek-V3 pre-training, 2048 x H800'
measured_label = 'measured 19.93 s (expected -22%)'
data = './waterfall.dat'
NPANELS = 2
NROWS = 10
XMAX = 30
NSAVE = 0
MEASURED = 19.926
c_sol = '#33BBEE'
c_add = '#EE7733'
c_save = '#009988'
c_expected = '#0077BB'
c_measured = '#000000'
# ---- layout: the panels, screen fractions from roofplan ----
L1 = 0.215
R1 = 0.5775
L2 = 0.6125
R2 = 0.975
TOP = 0.69
BOTTOM = 0.125
H = 0.33  # half the height of a bar

set bmargin at screen BOTTOM
set tmargin at screen TOP
set xrange [0:XMAX]
set yrange [0.4:NROWS + 0.6]
set xtics font ',16' nomirror out
set mxtics 2
set grid xtics lw 1 lc rgb '#DDDDDD'
set border 1 lw 1.5
set xlabel xlabel_text font ',17'
set style fill solid 1.0 border rgb '#FFFFFF'
set style textbox opaque fillcolor rgb '#FFFFFF' noborder margins 2,1
set samples 100
unset key

# The bars by kind: a row of another kind gets an undefined position
# (1/0) and is skipped.
lo(s, e) = s < e ? s : e
hi(s, e) = s < e ? e : s
only(ok) = ok ? 1 : 1/0
# Values (boxed: the measured line passes behind them): after the bar's
# right end, or left of the bar when the right end is near the edge. A label not to draw goes far left
# of the axis: gnuplot 5.4 crashes when every point of a `with labels`
# plot is undefined (1/0).
NOLABEL = -1e30
near_edge(s, e) = hi(s, e) > 0.8 * XMAX
lx(s, e) = near_edge(s, e) ? NOLABEL : hi(s, e)
rx(s, e) = near_edge(s, e) ? lo(s, e) : NOLABEL
vtext(v, share, k) = k == 1 ? sprintf('%+.2f s (%.0f%%)', v, 100 * share) : sprintf('%.2f s', v)

# The legend, drawn by hand in one row (gnuplot's key wraps to the
# width of one panel): swatches and their words at screen fractions.
LEG_Y = 0.785
legend(n, x, color, text) = sprintf("set object %d rect from screen %g, screen %g to screen %g, screen %g fc rgb '%s' fs solid 1.0 noborder front; set label %d '%s' at screen %g, screen %g left font ',14' front", 400 + n, x, LEG_Y - 0.011, x + 0.022, LEG_Y + 0.011, color, 400 + n, text, x + 0.029, LEG_Y)

# Speed: gnuplot sets and clears a SIGFPE handler around every `using`
# expression of every point (three system calls each, most of its system
# time); this data is plain finite numbers, so nothing can trap.
set datafile nofpe_trap

# The chart once per terminal: PNG, SVG, then PDF where gnuplot has it
# (a multiplot cannot be replotted).
do for [t = 1:3] {
if (t == 1) {
    set terminal pngcairo size 1600,900 noenhanced font 'Sans,15' background rgb '#FFFFFF'
    set output './waterfall.png'
}
if (t == 2) {
    set terminal svg size 1600,900 noenhanced font 'Sans,15' fontscale 1.333 background rgb '#FFFFFF'
    set output './waterfall.svg'
}
if (t == 3 && strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
    set terminal pdfcairo size 16.667in,9.375in noenhanced font 'Sans,15' fontscale 0.75
    set output './waterfall.pdf'
}
if (t < 3 || strstrt(GPVAL_TERMINALS, 'pdfcairo') > 0) {
set multiplot
do for [p = 0:NPANELS - 1] {
    unset label
    unset arrow
    unset object
    if (p == 0) {
        set label 101 title_text at screen 0.015, screen 0.955 left font title_font front
        set label 102 sub1 at screen 0.015, screen 0.905 left font sub1_font textcolor rgb '#333333' front
        set label 103 sub2 at screen 0.015, screen 0.868 left font sub2_font textcolor rgb '#333333' front
        set label 104 sub3 at screen 0.015, screen 0.831 left font ',15' textcolor rgb '#333333' front
        set label 105 footer at screen 0.985, screen 0.016 right font ',11' textcolor rgb '#777777' front
        x = 0.015
        eval legend(1, x, c_sol, 'speed of light (the floor)')
        x = x + 0.205
        eval legend(2, x, c_add, 'an effect adds time')
        x = x + 0.16
        if (NSAVE > 0) {
            eval legend(3, x, c_save, 'an effect saves time')
            x = x + 0.165
        }
        eval legend(4, x, c_expected, 'expected step')
        x = x + 0.13
        if (NPANELS > 1 && MEASURED > 0) {
            set arrow 401 from screen x, screen LEG_Y to screen x + 0.022, screen LEG_Y nohead lw 2.5 dt (6,4) lc rgb c_measured front
            set label 405 'measured step (published run)' at screen x + 0.029, screen LEG_Y left font ',14' front
        }
        set lmargin at screen L1
        set rmargin at screen R1
set ytics ('speed of light' 10, 'GEMM efficiency by shape' 9, 'attention kernels' 8, 'elementwise and memory' 7, 'sustained clock (power cap)' 6, 'host overhead (launches)' 5, 'network efficiency by size' 4, 'communication not overlapped' 3, 'expert load (dropless routing)' 2, 'expected step' 1)

        set ytics font ',15' nomirror scale 0 offset -0.6,0
        set label 201 panel1 at graph 0, graph 1 left offset 0,2.2 font 'Sans Bold,14' front
    } else {
        set lmargin at screen L2
        set rmargin at screen R2
        unset ytics
        set label 201 panel2 at graph 0, graph 1 left offset 0,2.2 font 'Sans Bold,14' front
        if (MEASURED > 0) {
            set label 301 measured_label at MEASURED, graph 1 center offset 0,0.8 font ',14' textcolor rgb c_measured front
        }
    }
    plot \
        data index p using (only($6 == 0)*0):1:(lo($2,$3)):(hi($2,$3)):($1-H):($1+H) with boxxyerror fc rgb c_sol notitle, \
        data index p using (only($6 == 1 && $4 >= 0)*0):1:(lo($2,$3)):(hi($2,$3)):($1-H):($1+H) with boxxyerror fc rgb c_add notitle, \
        data index p using (only($6 == 1 && $4 < 0)*0):1:(lo($2,$3)):(hi($2,$3)):($1-H):($1+H) with boxxyerror fc rgb c_save notitle, \
        data index p using (only($6 == 2)*0):1:(lo($2,$3)):(hi($2,$3)):($1-H):($1+H) with boxxyerror fc rgb c_expected notitle, \
        data index p using ($6 < 2 ? $3 : 1/0):($1-H):(0):(-(1-2*H)) with vectors nohead dt (3,3) lw 1.2 lc rgb '#777777' notitle, \
        '+' using (p == 1 && MEASURED > 0 ? MEASURED : 1/0):(0.4 + $0 * (NROWS + 0.2) / 99.0) with lines lw 2.5 dt (10,5) lc rgb c_measured notitle, \
        data index p using (lx($2,$3)):1:(vtext($4,$5,$6)) with labels left offset 0.6,0 boxed font ',14' notitle, \
        data index p using (rx($2,$3)):1:(vtext($4,$5,$6)) with labels right offset -0.6,0 boxed font ',14' notitle
}
unset multiplot
set output
}
}
