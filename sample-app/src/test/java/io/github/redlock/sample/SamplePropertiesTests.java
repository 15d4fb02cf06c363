package io.github.redlock.sample;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.github.redlock.annotation.DistributedLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The jobs' annotations read their periods and holds through placeholders with defaults;
 * {@link SampleProperties} documents the same properties (IDE completion, the defaults in
 * the metadata, {@code GET /demo/jobs}). This keeps the two sets of defaults equal.
 */
class SamplePropertiesTests {

	private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([^:}]+):([^}]+)}");

	private final SampleProperties defaults = new SampleProperties();

	@Test
	void theDigestJobsPlaceholderDefaultsAreTheProperties() throws Exception {
		Method method = DigestJob.class.getMethod("sendDigest");
		SampleProperties.Digest digest = this.defaults.getJobs().getDigest();
		assertDefault(method.getAnnotation(Scheduled.class).fixedRateString(), "sample.jobs.digest.period",
				digest.getPeriod());
		assertDefault(method.getAnnotation(DistributedLock.class).holdAtLeast(), "sample.jobs.digest.hold-at-least",
				digest.getHoldAtLeast());
	}

	@Test
	void theCleanupJobsPlaceholderDefaultsAreTheProperties() throws Exception {
		Method method = CleanupJob.class.getMethod("cleanUp");
		SampleProperties.Cleanup cleanup = this.defaults.getJobs().getCleanup();
		assertDefault(method.getAnnotation(Scheduled.class).fixedRateString(), "sample.jobs.cleanup.period",
				cleanup.getPeriod());
		assertDefault(method.getAnnotation(SchedulerLock.class).lockAtLeastFor(),
				"sample.jobs.cleanup.lock-at-least-for", cleanup.getLockAtLeastFor());
	}

	@Test
	void thePaymentWaitPlaceholderDefaultIsTheProperty() throws Exception {
		Method method = PaymentService.class.getMethod("pay", long.class);
		assertDefault(method.getAnnotation(DistributedLock.class).waitTime(), "sample.payment-wait",
				this.defaults.getPaymentWait());
	}

	@Test
	void eachInstanceHasANameByDefault() {
		assertThat(this.defaults.getInstance()).contains("@");
	}

	private static void assertDefault(String value, String property, Duration expected) {
		Matcher matcher = PLACEHOLDER.matcher(value);
		assertThat(matcher.matches()).as("%s is a placeholder with a default", value).isTrue();
		assertThat(matcher.group(1)).isEqualTo(property);
		assertThat(DurationStyle.detectAndParse(matcher.group(2))).as("the default of %s in %s", property, value)
			.isEqualTo(expected);
	}

}
