package io.github.llmthrottle.benchmarks.memory;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A sanity check of the download benchmark's set-up, not a measurement: a small download
 * reaches the caller whole through both clients, and charges the model nothing.
 */
class LargeDownloadTests {

    @Test
    void bothClientsReadTheWholeDownloadAndTheModelIsNotCharged() throws Exception {
        List<LargeDownload.Result> results = LargeDownload.run(8L << 20);
        assertThat(results).hasSize(2).allSatisfy((result) -> {
            assertThat(result.bytes()).isEqualTo(8L << 20);
            assertThat(result.modelCalls()).isZero();
        });
    }

}
