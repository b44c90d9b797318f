package io.github.llmthrottle.sample;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.client.DeploymentSettings;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottledClient;

/**
 * The summary table of a demo burst: per priority the calls, their outcomes, queue waits
 * and latencies; which models answered the realtime questions; how each model's attempts
 * spread over its deployments; per client and model the totals of the endpoint, with
 * their cost and what is left of the budgets; and how much of each input limit the burst
 * used.
 */
final class DemoSummary {

    private final LlmThrottleRegistry registry;

    private final QueueWaitRecorder queueWaits;

    DemoSummary(LlmThrottleRegistry registry, QueueWaitRecorder queueWaits) {
        this.registry = registry;
        this.queueWaits = queueWaits;
    }

    /**
     * The summary table of a burst that ended.
     * @param calls the calls of the burst
     * @param elapsed how long the burst took
     * @param outcomes how each call ended, by priority
     * @param chatClientCalls the calls through Spring AI's {@code call()}
     * @param chatClientStreams the calls through Spring AI's {@code stream()}
     * @return the table, its first line containing {@code Summary}
     */
    String table(int calls, Duration elapsed, Map<Priority, ? extends Collection<DemoRun.Outcome>> outcomes,
            int chatClientCalls, int chatClientStreams) {
        StringBuilder table = new StringBuilder();
        table.append(String.format(Locale.ROOT, "==== llm-throttle demo: Summary (%d calls in %.1f s) ====%n", calls,
                elapsed.toMillis() / 1000.0));
        table.append(String.format(Locale.ROOT, "%-9s %6s %6s %9s %7s %10s  %-22s %-22s%n", "priority", "calls", "ok",
                "degraded", "failed", "fallbacks", "queue wait p50/95/99", "latency p50/95/99"));
        for (Priority priority : Priority.values()) {
            List<DemoRun.Outcome> list = new ArrayList<>(outcomes.get(priority));
            long ok = list.stream().filter((o) -> o.failure() == null && !o.answer().degraded()).count();
            long degraded = list.stream().filter((o) -> o.failure() == null && o.answer().degraded()).count();
            long failed = list.stream().filter((o) -> o.failure() != null).count();
            long fallbacks = list.stream()
                .filter((o) -> o.answer() != null && priority == Priority.REALTIME
                        && !SimulatedProvider.OPUS.equals(o.answer().model()) && !o.answer().degraded())
                .count();
            long[] latencies = list.stream().mapToLong((o) -> o.latency().toMillis()).sorted().toArray();
            table.append(String.format(Locale.ROOT, "%-9s %6d %6d %9d %7d %10d  %-22s %-22s%n", priority, list.size(),
                    ok, degraded, failed, fallbacks, percentiles(this.queueWaits.waitsMillis(priority)),
                    percentiles(latencies)));
        }
        table.append(String.format(Locale.ROOT,
                "(of which through Spring AI's ChatClient: %d call() at NORMAL, %d stream() at BATCH)%n",
                chatClientCalls, chatClientStreams));
        table.append(answeredBy(outcomes.get(Priority.REALTIME)));
        table.append(deployments());
        String currency = this.registry.getBudgets().settings().currency();
        table.append(String.format(Locale.ROOT, "%n%-10s %-22s %7s %9s %6s %6s %9s %12s %12s %12s %12s %10s%n",
                "client", "model", "calls", "attempts", "429s", "529s", "retries", "input tok", "output tok",
                "cache read", "cache write", "cost " + currency));
        BigDecimal[] cost = { BigDecimal.ZERO };
        for (ThrottledClient client : this.registry.getClients().values()) {
            client.getModels().forEach((name, model) -> {
                ModelTotals.Snapshot totals = model.getTotals().snapshot();
                cost[0] = cost[0].add(model.getTotals().cost());
                table.append(String.format(Locale.ROOT, "%-10s %-22s %7d %9d %6d %6d %9d %12d %12d %12d %12d %10.4f%n",
                        client.getName(), name, totals.calls(), totals.attempts(), totals.rateLimited(),
                        totals.overloaded(), totals.retries(), totals.inputTokens(), totals.outputTokens(),
                        totals.cacheReadTokens(), totals.cacheWriteTokens(), model.getTotals().cost()));
            });
        }
        table.append(String.format(Locale.ROOT, "the burst cost %.4f %s at the prices of application.yml%n", cost[0],
                currency));
        table.append(budgets());
        table.append(String.format(Locale.ROOT, "%ntokens admitted against the input limit over %.1f s:%n",
                elapsed.toMillis() / 1000.0));
        for (ThrottledClient client : this.registry.getClients().values()) {
            client.getModels().forEach((name, model) -> {
                // a model with deployments is admitted against its deployments' limits
                if (!model.getDeployments().isEmpty()) {
                    return;
                }
                DeploymentSettings deployment = model.getDeployment();
                Long itpm = ((deployment != null) ? deployment.limits() : client.getSettings().limitsOf(name))
                    .inputTokensPerMinute();
                if (itpm != null) {
                    long used = model.getTotals().snapshot().inputTokens();
                    // a bucket holds one minute's worth, so the most admissible is a full
                    // bucket plus the refill
                    double admissible = itpm + itpm * elapsed.toMillis() / 60_000.0;
                    table.append(String.format(Locale.ROOT, "  %-22s %8d of at most %8.0f (%5.1f%%)%n", name, used,
                            admissible, 100 * used / admissible));
                }
            });
        }
        return table.toString();
    }

    /** What is left of each budget in money. */
    private String budgets() {
        Map<String, List<String>> models = new TreeMap<>();
        this.registry.getClients()
            .forEach((name, client) -> models.put(name, List.copyOf(client.getSettings().models().keySet())));
        StringBuilder lines = new StringBuilder();
        for (Budgets.BudgetState budget : this.registry.getBudgets().states(models)) {
            String owner = (budget.model() != null) ? budget.client() + "/" + budget.model()
                    : (budget.client() != null) ? budget.client() : "tenant " + budget.tenant();
            lines.append(String.format(Locale.ROOT, "budget of %s per %s: %s of %s %s spent, resets at %s%n", owner,
                    budget.window().tag(), budget.spent().toPlainString(), budget.limit().toPlainString(),
                    budget.currency(), budget.resetsAt()));
        }
        return lines.toString();
    }

    /** Which model answered the realtime questions: Opus, or a fallback. */
    private static String answeredBy(Collection<DemoRun.Outcome> questions) {
        Map<String, Long> models = new TreeMap<>();
        for (DemoRun.Outcome outcome : questions) {
            if (outcome.answer() != null) {
                models.merge(outcome.answer().model(), 1L, Long::sum);
            }
        }
        StringBuilder line = new StringBuilder("questions answered by:");
        models.forEach((model, count) -> line.append(String.format(Locale.ROOT, " %s %d,",
                model.equals(SimulatedProvider.GPT) ? "openai:" + model + " (another client)" : model, count)));
        line.setLength(line.length() - ((models.isEmpty()) ? 0 : 1));
        return line.append(System.lineSeparator()).toString();
    }

    /** How the attempts of each model with deployments spread over them. */
    private String deployments() {
        StringBuilder lines = new StringBuilder();
        for (ThrottledClient client : this.registry.getClients().values()) {
            client.getModels().forEach((name, model) -> {
                List<ThrottledClient.ThrottledModel> deployments = model.getDeployments();
                if (deployments.isEmpty()) {
                    return;
                }
                long attempts = deployments.stream()
                    .mapToLong((deployment) -> deployment.getTotals().snapshot().attempts())
                    .sum();
                lines.append(name).append(" deployments:");
                for (ThrottledClient.ThrottledModel deployment : deployments) {
                    ModelTotals.Snapshot totals = deployment.getTotals().snapshot();
                    lines.append(String.format(Locale.ROOT, "  %s %d attempts (%.0f%%, %d 429s, %d 529s)",
                            deployment.getName(), totals.attempts(),
                            (attempts > 0) ? 100.0 * totals.attempts() / attempts : 0.0, totals.rateLimited(),
                            totals.overloaded()));
                }
                lines.append(System.lineSeparator());
            });
        }
        return lines.toString();
    }

    private static String percentiles(long[] sortedMillis) {
        if (sortedMillis.length == 0) {
            return "-";
        }
        return String.format(Locale.ROOT, "%s/%s/%s", millis(percentile(sortedMillis, 0.50)),
                millis(percentile(sortedMillis, 0.95)), millis(percentile(sortedMillis, 0.99)));
    }

    private static long percentile(long[] sorted, double p) {
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }

    private static String millis(long millis) {
        return (millis >= 1000) ? String.format(Locale.ROOT, "%.1fs", millis / 1000.0) : millis + "ms";
    }

}
