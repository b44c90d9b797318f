package io.github.llmthrottle.benchmarks.springai;

import java.util.List;

import io.github.llmthrottle.benchmarks.load.ContenderSpec;
import io.github.llmthrottle.benchmarks.load.LoadComparison;
import io.github.llmthrottle.benchmarks.load.LoadScenario;

/**
 * The load comparison of the benchmarks module for Spring AI's {@code ChatClient}, with
 * and without llm-throttle: the same scenarios, options, simulator and table, run by
 * {@link LoadComparison#compare}. <pre>
 * java -cp benchmarks-spring-ai/target/benchmarks-spring-ai.jar \
 *     io.github.llmthrottle.benchmarks.springai.SpringAiLoadComparison \
 *     [--scenario steady|shifting] [--seconds 20] [--rate CALLS_PER_SECOND] [--only SUBSTRING[,SUBSTRING...]]
 * </pre>
 */
public final class SpringAiLoadComparison {

    private SpringAiLoadComparison() {
    }

    public static void main(String[] args) throws Exception {
        LoadComparison.compare(args, SpringAiLoadComparison::contenders);
        System.exit(0);
    }

    /**
     * The Spring AI contenders, in the report's order.
     * @param scenario the scenario
     * @return the contenders
     */
    public static List<ContenderSpec> contenders(LoadScenario scenario) {
        return List.of(
                new ContenderSpec("Spring AI ChatClient, defaults (SDK maxRetries 2)",
                        (url, s) -> new SpringAiChatClientContender(url, s, false)),
                new ContenderSpec("Spring AI ChatClient with llm-throttle (limits configured)",
                        (url, s) -> new SpringAiChatClientContender(url, s, true)));
    }

}
