/** The step from 1, 2 and 5 times a power of ten closest above `rough`, at least 1 (counts are whole). */
function niceStep(rough: number): number {
  if (rough <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const residual = rough / magnitude;
  return (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude;
}

/**
 * Y-axis ticks for counts up to `max`: whole numbers from 0, evenly spaced, each once, the last one
 * at or above `max` (the chart's top), about `target` steps.
 */
export function countTicks(max: number, target = 4): number[] {
  const top = Math.max(1, Math.ceil(max));
  const step = niceStep(top / target);
  const ticks: number[] = [];
  for (let tick = 0; tick < top + step; tick += step) ticks.push(tick);
  return ticks;
}
