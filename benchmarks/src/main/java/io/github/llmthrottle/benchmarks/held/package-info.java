/**
 * Load held, measured: many concurrent callers against one tight model limit
 * ({@link io.github.llmthrottle.benchmarks.held.ConcurrentCallers}), and a soak at twice
 * the limits with faults injected ({@link io.github.llmthrottle.benchmarks.held.Soak}).
 * Both count every call's outcome by type and check that nothing is left behind: no call
 * that never ended, no permit or queue place still taken. Run them as described in
 * {@code benchmarks/REPORT.md}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks.held;

import org.jspecify.annotations.NullMarked;
