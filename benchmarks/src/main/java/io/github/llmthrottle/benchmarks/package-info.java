/**
 * Benchmarks of llm-throttle: JMH micro-benchmarks of the per-request overhead
 * ({@code jmh}) and a load comparison against the simulated provider ({@code load}). See
 * {@code benchmarks/REPORT.md}.
 */
@NullMarked
package io.github.llmthrottle.benchmarks;

import org.jspecify.annotations.NullMarked;
