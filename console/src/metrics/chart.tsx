/**
 * One dashboard chart drawn by uPlot (a canvas chart library) from a `Chart` of
 * metrics/series.ts, with the same numbers as a table beneath it for screen readers and
 * for anyone who wants the figures. The canvas is an image to assistive technology, named
 * by the chart's title; the table is the accessible form. Redrawn when the data changes,
 * resized with its box, and drawn again in a new theme's colours.
 */
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useTheme } from '../theme.tsx';
import { type Chart, type Tone, valueText, weekText } from './series.ts';

/** Series colours by position, for series whose colour means nothing: design tokens of styles.css (six-digit hex, so an alpha pair can follow), each theme's own. */
const SERIES_TONES: readonly Tone[] = ['accent', 'danger', 'ok', 'warn'];
/** Line dashes by position, so series are told apart by shape too, never by colour alone. */
const DASHES: readonly (number[] | undefined)[] = [undefined, [6, 4], [2, 3], [10, 3, 2, 3], [1, 6]];

/** The theme's palette as the canvas needs it: colours, not CSS variables. */
function palette(): { tone: (tone: Tone) => string; text: string; grid: string } {
  const style = getComputedStyle(document.documentElement);
  const token = (name: string) => style.getPropertyValue(name).trim();
  return { tone: (tone) => token(`--${tone}`), text: token('--fg'), grid: token('--line') };
}
const HEIGHT = 220;
/** Half a week in seconds: the x scale reaches this far past the first and last week, so their bars are whole. */
const HALF_WEEK = 3.5 * 86_400;

function options(chart: Chart, width: number): uPlot.Options {
  const colours = palette();
  const axis = { stroke: colours.text, grid: { stroke: colours.grid }, ticks: { stroke: colours.grid } };
  // One bar series centred on its week's tick; two side by side, the first left of it, the second right.
  const single = chart.series.filter((series) => series.kind === 'bars').length === 1;
  const bars = single
    ? [uPlot.paths.bars?.({ size: [0.6, 60], align: 0 })]
    : [uPlot.paths.bars?.({ size: [0.35, 40], align: -1 }), uPlot.paths.bars?.({ size: [0.35, 40], align: 1 })];
  return {
    width,
    height: HEIGHT,
    scales: { x: { time: true, range: (_u, min, max) => [min - HALF_WEEK, max + HALF_WEEK] } },
    axes: [axis, { ...axis, label: chart.unit, size: 60 }],
    // The legend names the series; their values are in the table, so it does not follow the pointer.
    legend: { live: false },
    series: [
      { label: 'Week of' },
      ...chart.series.map((series, index) => {
        const colour = colours.tone(series.tone ?? SERIES_TONES[index % SERIES_TONES.length] ?? 'accent');
        return series.kind === 'bars'
          ? { label: series.label, stroke: colour, fill: `${colour}99`, width: 1, paths: bars[index % bars.length], points: { show: false } }
          : { label: series.label, stroke: colour, width: 2, dash: DASHES[index % DASHES.length], spanGaps: false };
      }),
    ],
  };
}

/** The chart, then its numbers in a table; `wide` spans the row, for a table with many series. */
export function MetricsChart({ chart, testId, wide = false }: { chart: Chart; testId: string; wide?: boolean }) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  // biome-ignore lint/correctness/useExhaustiveDependencies: the colours are read from the document's tokens when the chart is drawn, so a new theme draws it again
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [chart.x, ...chart.series.map((series) => series.values)];
    const plot = new uPlot(options(chart, element.clientWidth || 600), data, element);
    const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [chart, theme]);
  return (
    <figure className={wide ? 'metrics-chart wide' : 'metrics-chart'} data-testid={testId}>
      <figcaption>{chart.title}</figcaption>
      <div ref={box} role="img" aria-label={`${chart.title}: chart; the numbers are in the table below`} />
      {chart.x.length === 0 ? (
        <p className="muted">No weeks in this window.</p>
      ) : (
        <table aria-label={chart.title}>
          <thead>
            <tr>
              <th scope="col">Week of</th>
              {chart.series.map((series) => (
                <th key={series.label} scope="col">
                  {series.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {chart.x.map((x, row) => (
              <tr key={x}>
                <th scope="row">{weekText(x)}</th>
                {chart.series.map((series) => (
                  <td key={series.label}>{valueText(series.values[row] ?? null, chart.unit)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </figure>
  );
}
