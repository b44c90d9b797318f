package io.github.llmthrottle.docs;

import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.observation.DefaultLlmThrottleAttemptObservationConvention;
import io.github.llmthrottle.observation.DefaultLlmThrottleCallObservationConvention;
import io.github.llmthrottle.observation.LlmThrottleObservationDocumentation;
import io.micrometer.common.docs.KeyName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys of each observation that {@code docs/reference/metrics.md} lists are exactly
 * those of {@link LlmThrottleObservationDocumentation}, each with its cardinality, and
 * the meters made of the observations carry their low-cardinality keys.
 */
class ObservationsReferenceTests {

    @Test
    void callKeysAreThoseOfTheCallObservation() throws IOException {
        assertThat(documentedKeys(DefaultLlmThrottleCallObservationConvention.NAME))
            .isEqualTo(keys(LlmThrottleObservationDocumentation.CALL));
    }

    @Test
    void attemptKeysAreThoseOfTheAttemptObservation() throws IOException {
        assertThat(documentedKeys(DefaultLlmThrottleAttemptObservationConvention.NAME))
            .isEqualTo(keys(LlmThrottleObservationDocumentation.ATTEMPT));
    }

    @Test
    void metersOfTheObservationsCarryTheirLowCardinalityKeys() throws IOException {
        List<String> low = Arrays.stream(LlmThrottleObservationDocumentation.CALL.getLowCardinalityKeyNames())
            .map(KeyName::asString)
            .toList();
        for (List<String> row : ReferencePage.read("metrics.md").rows("Meters of the observations")) {
            List<String> tags = ReferencePage.names(row.get(2));
            String meter = ReferencePage.code(row.get(0));
            assertThat(tags).as("tags of %s", meter).startsWith(low.toArray(String[]::new));
            assertThat(tags).as("tags of %s", meter).hasSize(meter.endsWith(".active") ? low.size() : low.size() + 1);
        }
    }

    private static Map<String, String> documentedKeys(String observation) throws IOException {
        Map<String, String> keys = new LinkedHashMap<>();
        List<List<String>> rows = ReferencePage.read("metrics.md").rows("Keys of `" + observation + "`");
        assertThat(rows).as("keys of %s", observation).isNotEmpty();
        rows.forEach((row) -> keys.put(ReferencePage.code(row.get(0)), row.get(1)));
        return keys;
    }

    private static Map<String, String> keys(LlmThrottleObservationDocumentation observation) {
        Map<String, String> keys = new LinkedHashMap<>();
        Arrays.stream(observation.getLowCardinalityKeyNames()).forEach((key) -> keys.put(key.asString(), "low"));
        Arrays.stream(observation.getHighCardinalityKeyNames()).forEach((key) -> keys.put(key.asString(), "high"));
        return keys;
    }

}
