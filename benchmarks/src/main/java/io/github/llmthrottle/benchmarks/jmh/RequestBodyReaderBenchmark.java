package io.github.llmthrottle.benchmarks.jmh;

import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.provider.LlmRequest;
import io.github.llmthrottle.provider.RequestBodyReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading a Messages request body before admission (model, {@code max_tokens}, prompt
 * characters): a typical 2 KB body and a 100 KB one with a long conversation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RequestBodyReaderBenchmark {

    /** Size of the JSON body in bytes. */
    @Param({ "2048", "102400" })
    public int bodyBytes;

    private final RequestBodyReader reader = new RequestBodyReader();

    private byte[] body = new byte[0];

    @Setup
    public void createBody() {
        this.body = MessagesBodies.ofSize("claude-sonnet-4-5", 1024, this.bodyBytes);
    }

    @Benchmark
    public LlmRequest read() {
        return this.reader.read(this.body);
    }

}
