package io.github.llmthrottle.sample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.github.llmthrottle.sample.AssistantService.Question;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample application with Spring Boot's tracing (Brave): a question that is rate
 * limited once is one trace in which Spring's {@code http.client.requests} span holds the
 * {@code llm.throttle.call} span, which holds one {@code llm.throttle.attempt} span per
 * attempt, the back-off between them showing as the gap. Prints the trace as a tree.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "demo.enabled=false", "management.tracing.sampling.probability=1.0" })
class TracingTests {

    @Autowired
    private AssistantService assistant;

    @Autowired
    private LlmSimulator simulator;

    @Autowired
    private FinishedSpans finished;

    private List<MutableSpan> spans = List.of();

    @Test
    void aRetriedCallIsOneCallSpanWithAnAttemptSpanPerAttemptInsideSpringsHttpClientSpan() {
        this.simulator.script(SimulatedProvider.OPUS, Fault.status(429).retryAfter("1"));
        Answer answer = this.assistant.answer(new Question("What is a token bucket?"));
        assertThat(answer.model()).isEqualTo(SimulatedProvider.OPUS);

        this.spans = this.finished.spans;
        MutableSpan call = single("llm call " + SimulatedProvider.OPUS);
        MutableSpan http = byId(call.parentId());
        assertThat(http.name()).isEqualTo("http post");
        assertThat(call.tags()).containsEntry("client", "anthropic")
            .containsEntry("model", SimulatedProvider.OPUS)
            .containsEntry("priority", "realtime")
            .containsEntry("outcome", "success")
            .containsEntry("llm.throttle.attempts", "2");
        List<MutableSpan> attempts = this.spans.stream()
            .filter((span) -> call.id().equals(span.parentId()))
            .sorted(Comparator.comparingLong(MutableSpan::startTimestamp))
            .toList();
        assertThat(attempts).hasSize(2).allSatisfy((attempt) -> {
            assertThat(attempt.name()).isEqualTo("llm attempt " + SimulatedProvider.OPUS);
            assertThat(attempt.traceId()).isEqualTo(http.traceId());
        });
        assertThat(attempts.get(0).tags()).containsEntry("outcome", "rate_limited")
            .containsEntry("http.response.status_code", "429");
        assertThat(attempts.get(0).error()).isNotNull();
        assertThat(attempts.get(1).tags()).containsEntry("outcome", "success")
            .containsEntry("llm.throttle.attempt.number", "2")
            .containsKey("llm.throttle.back_off")
            .containsKey("gen_ai.usage.output_tokens");
        // the server asked for a second: the second attempt starts a second or more after
        // the first one ended
        assertThat(attempts.get(1).startTimestamp() - attempts.get(0).finishTimestamp())
            .isGreaterThanOrEqualTo(1_000_000);
        System.out.println(tree(http, ""));
    }

    private MutableSpan single(String name) {
        List<MutableSpan> named = this.spans.stream().filter((span) -> name.equals(span.name())).toList();
        assertThat(named).as("spans named " + name).hasSize(1);
        return named.get(0);
    }

    private MutableSpan byId(String id) {
        return this.spans.stream()
            .filter((span) -> span.id().equals(id))
            .findFirst()
            .orElseThrow(() -> new AssertionError("No span " + id));
    }

    private String tree(MutableSpan span, String indent) {
        StringBuilder text = new StringBuilder();
        text.append(indent)
            .append(span.name())
            .append("  ")
            .append((span.finishTimestamp() - span.startTimestamp()) / 1000)
            .append(" ms  ")
            .append(span.tags())
            .append(System.lineSeparator());
        List<MutableSpan> children = new ArrayList<>(
                this.spans.stream().filter((child) -> span.id().equals(child.parentId())).toList());
        children.sort(Comparator.comparingLong(MutableSpan::startTimestamp));
        for (MutableSpan child : children) {
            text.append(tree(child, indent + "  "));
        }
        return text.toString();
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Spans {

        @Bean
        FinishedSpans finishedSpans() {
            return new FinishedSpans();
        }

    }

    /**
     * Keeps every span Brave finishes (Boot adds each SpanHandler bean to its tracing).
     */
    static class FinishedSpans extends SpanHandler {

        final List<MutableSpan> spans = new CopyOnWriteArrayList<>();

        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            this.spans.add(span);
            return true;
        }

    }

}
