package io.github.delayqueue.sample;

import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.logging.Level;

import io.github.delayqueue.config.DelayedListenerEndpointRegistry;
import io.github.delayqueue.core.DelayedJobTemplate;
import io.github.delayqueue.core.JobState;
import io.github.delayqueue.core.OnDuplicate;
import io.github.delayqueue.core.ScheduleRequest;
import io.github.delayqueue.redis.RedisDelayQueue;
import io.github.delayqueue.test.AutoConfigureTestRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.ReturnType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample app's dashboard in headless Chromium, driven through Selenium as an operator would
 * use it: sign in, watch the counts and the charts move, find a job, replay a dead job and see
 * it delivered, pause and resume a listener from the keyboard, read it at a phone's width.
 * Needs Debian's {@code chromium} and {@code chromium-driver} ({@code .ci/run} installs them);
 * without them the test is skipped, except on CI ({@code CI} set), where it fails. Takes the
 * screenshots shown in the README, into {@code target/screenshots}, and into
 * {@code docs/images} with {@code -Ddashboard.screenshots=docs/images}.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "sample.embedded-redis.enabled=false", "sample.demo-order=false",
				"sample.order.close-after=1h", "sample.webhook.back-off=100ms",
				"delayqueue.listener.back-off.jitter=0ms", "delayqueue.dashboard.refresh-interval=500ms" })
@AutoConfigureTestRedis
class DashboardBrowserTests {

	private static final JsonMapper json = JsonMapper.builder().build();

	private static final int MILLION = 1_000_000;

	private static final int MILLION_CHUNK = 20_000;

	private static final byte[] BULK_PAYLOAD = "{\"a\":1}".getBytes(StandardCharsets.UTF_8);

	/** KEYS jobs, delayed, stats of a bucket; ARGV[1] "<topic>:", ARGV[2] the due time (ms). */
	private static final String REMOVE_DELAYED = """
			local keys = redis.call('ZRANGEBYSCORE', KEYS[2], ARGV[2], ARGV[2])
			local n = 0
			for _, jobkey in ipairs(keys) do
			  if string.sub(jobkey, 1, #ARGV[1]) == ARGV[1] then
			    redis.call('HDEL', KEYS[1], jobkey)
			    redis.call('ZREM', KEYS[2], jobkey)
			    n = n + 1
			  end
			end
			redis.call('HINCRBY', KEYS[3], 'D:' .. string.sub(ARGV[1], 1, -2), -n)
			return n
			""";

	@LocalServerPort
	private int port;

	@Autowired
	private DelayedJobTemplate template;

	@Autowired
	private OrderService orders;

	@Autowired
	private WebhookService webhooks;

	@Autowired
	private DelayedListenerEndpointRegistry registry;

	@Autowired
	private RedisDelayQueue queue;

	private WebDriver browser;

	private WebDriverWait wait;

	@BeforeEach
	void openBrowser() {
		String chromium = Executables.find("chromium chromium-driver", "chromium", "chromium-browser", "google-chrome");
		String driver = Executables.find("chromium chromium-driver", "chromedriver");
		ChromeOptions options = new ChromeOptions();
		options.setBinary(chromium);
		options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
				"--window-size=1280,800", "--lang=en-US");
		// the browser's console, to see that the page breaks no rule (its content security policy)
		LoggingPreferences logs = new LoggingPreferences();
		logs.enable(LogType.BROWSER, Level.ALL);
		options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(driver))
			.usingAnyFreePort()
			.build();
		this.browser = new ChromeDriver(service, options);
		this.wait = new WebDriverWait(this.browser, Duration.ofSeconds(15));
	}

	@AfterEach
	void closeBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void anOperatorWatchesFindsReplaysAndPausesThroughTheDashboard() throws IOException {
		// jobs in every state: DELAYED order closes, READY and RESERVED jobs of topics that
		// nobody consumes here, DEAD webhooks (the partner is down)
		for (int i = 0; i < 3; i++) {
			this.orders.place("book " + i, BigDecimal.TEN);
		}
		this.template.schedule("backlog", "b-1", "{}", Duration.ZERO);
		this.template.schedule("backlog", "b-2", "{}", Duration.ZERO);
		this.template.schedule("manual", "m-1", "{}", Duration.ZERO);
		assertThat(this.template.getOperations().reserve("manual", 1, Duration.ofHours(1))).hasSize(1);
		this.webhooks.setReceiverUp(false);
		for (String id : List.of("hook-1", "hook-2")) {
			this.template.job(WebhookService.TOPIC, id)
				.payload(new WebhookService.Event("order.closed", id, Instant.now()))
				.delay(Duration.ZERO)
				.maxAttempts(3)
				.schedule();
		}
		this.wait.until((d) -> state(WebhookService.TOPIC, "hook-1") == JobState.DEAD
				&& state(WebhookService.TOPIC, "hook-2") == JobState.DEAD);

		signIn();
		this.wait.until((d) -> "3".equals(cell("order-close", "delayed")));
		assertThat(cell("backlog", "ready")).isEqualTo("2");
		assertThat(cell("manual", "reserved")).isEqualTo("1");
		assertThat(cell(WebhookService.TOPIC, "dead")).isEqualTo("2");
		assertThat(text(By.id("total-dead"))).isEqualTo("2");
		assertThat(text(By.cssSelector("#instances tbody tr th"))).endsWith("(this one)");
		assertThat(text(By.cssSelector("#instances tbody tr td:last-child"))).matches("buckets? \\d+(, \\d+)*");
		assertThat(text(By.cssSelector("#listeners tr[data-listener='order-closer'] [data-field='state']")))
			.isEqualTo("running");

		// the counts and the chart follow new jobs without a reload
		for (int i = 0; i < 5; i++) {
			this.orders.place("pen " + i, BigDecimal.ONE);
		}
		this.wait.until((d) -> "8".equals(cell("order-close", "delayed")));
		this.wait.until((d) -> chart("chart-depth").path("order-close").asInt() == 8);
		WebElement depth = this.browser.findElement(By.id("chart-depth"));
		assertThat(Integer.parseInt(depth.getDomAttribute("data-samples"))).isGreaterThan(1);
		assertThat(Integer.parseInt(depth.getDomAttribute("data-points"))).isGreaterThan(4);
		assertThat(chart("chart-lag").has("order-close")).isTrue();
		// the whole overview for the README, then back to 1280×800
		this.browser.manage().window().setSize(new Dimension(1280, 1560));
		screenshot("dashboard-overview.png");
		this.browser.manage().window().setSize(new Dimension(1280, 800));

		// find a dead job: its state and the error it died of
		this.browser.findElement(By.id("nav-find")).click();
		// a choice of the known topics, as Dead jobs and Waiting jobs offer them
		assertThat(this.browser.findElement(By.id("find-topic")).getTagName()).isEqualTo("select");
		this.wait.until((d) -> options("find-topic").contains(WebhookService.TOPIC)
				&& options("find-topic").equals(options("waiting-topic")));
		retrying((d) -> {
			new Select(d.findElement(By.id("find-topic"))).selectByValue(WebhookService.TOPIC);
			return true;
		});
		this.browser.findElement(By.id("find-id")).sendKeys("hook-1", Keys.ENTER);
		this.wait.until((d) -> "DEAD".equals(text(By.cssSelector("#find-result [data-field='state']"))));
		assertThat(text(By.cssSelector("#find-result [data-field='last-error']"))).contains("503");
		assertThat(text(By.cssSelector("#find-result [data-field='attempt']"))).isEqualTo("3 of 3");

		// the dead jobs of the topic; the partner is back: replay one, and it is delivered
		this.webhooks.setReceiverUp(true);
		this.browser.findElement(By.id("nav-dead")).click();
		retrying((d) -> {
			new Select(d.findElement(By.id("dead-topic"))).selectByValue(WebhookService.TOPIC);
			return true;
		});
		this.browser.findElement(By.cssSelector("#dead-form button[type='submit']")).click();
		this.wait.until((d) -> d.findElements(By.cssSelector("#dead-jobs tbody tr")).size() == 2);
		assertThat(text(By.cssSelector("#dead-jobs tr[data-id='hook-1'] .error-text"))).contains("503");
		screenshot("dashboard-dead-jobs.png");
		retrying((d) -> {
			d.findElement(By.cssSelector("#dead-jobs tr[data-id='hook-1'] button[data-action='replay']")).click();
			return true;
		});
		confirm();
		this.wait.until((d) -> this.webhooks.deliveries()
			.stream()
			.anyMatch((delivery) -> delivery.event().orderId().equals("hook-1")));
		this.wait.until((d) -> d.findElements(By.cssSelector("#dead-jobs tbody tr")).size() == 1);
		assertThat(state(WebhookService.TOPIC, "hook-2")).isEqualTo(JobState.DEAD);

		// pause and resume a listener, from the keyboard
		this.browser.findElement(By.id("nav-overview")).click();
		press(By.cssSelector("#listeners tr[data-listener='order-closer'] button[data-action='pause']"));
		this.wait.until((d) -> "paused".equals(listenerState("order-closer")));
		assertThat(this.registry.getListenerContainer("order-closer").getState()).isEqualTo("paused");
		// the focus moved to the button that took Pause's place: Enter resumes
		this.wait.until((d) -> "resume".equals(d.switchTo().activeElement().getDomAttribute("data-action")));
		press(By.cssSelector("#listeners tr[data-listener='order-closer'] button[data-action='resume']"));
		this.wait.until((d) -> "running".equals(listenerState("order-closer")));
		assertThat(this.registry.getListenerContainer("order-closer").getState()).isEqualTo("running");

		// a recurring job: its next fire time, and an occurrence triggered now
		assertThat(text(By.cssSelector("#recurring tr[data-recurring='unpaid-report'] time"))).isNotEmpty();
		retrying((d) -> {
			d.findElement(By.cssSelector("#recurring tr[data-recurring='unpaid-report'] button[data-action='trigger']"))
				.click();
			return true;
		});
		confirm();
		this.wait.until((d) -> text(By.id("notice")).startsWith("Triggered unpaid-report: "));

				// a phone's width: nothing wider than the screen but the tables, which scroll
		this.browser.manage().window().setSize(new Dimension(390, 844));
		this.wait.until((d) -> (Boolean) ((JavascriptExecutor) d)
			.executeScript("return document.documentElement.scrollWidth <= window.innerWidth;"));

		// nothing refused or failed in the browser's console (the browser's own favicon request aside)
		assertThat(this.browser.manage().logs().get(LogType.BROWSER).getAll())
			.filteredOn((entry) -> entry.getLevel().intValue() >= Level.WARNING.intValue())
			.filteredOn((entry) -> !entry.getMessage().contains("favicon.ico"))
			.extracting(LogEntry::getMessage)
			.isEmpty();
	}

	@Test
	void anOperatorListsWaitingJobsAndRunsOneNowAndCancelsAnother() {
		List<String> ids = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			ids.add(this.orders.place("pen " + i, BigDecimal.ONE).id());
		}
		signIn();
		this.browser.findElement(By.id("nav-waiting")).click();
		retrying((d) -> {
			new Select(d.findElement(By.id("waiting-topic"))).selectByValue("order-close");
			new Select(d.findElement(By.id("waiting-state"))).selectByValue("DELAYED");
			return true;
		});
		this.browser.findElement(By.cssSelector("#waiting-form button[type='submit']")).click();
		this.wait.until((d) -> ids.stream()
			.allMatch((id) -> !d.findElements(By.cssSelector("#waiting-jobs tr[data-id='" + id + "']")).isEmpty()));
		int rows = this.browser.findElements(By.cssSelector("#waiting-jobs tbody tr")).size();
		retrying((d) -> {
			d.findElement(By.cssSelector("#waiting-jobs tr[data-id='" + ids.get(0) + "'] button[data-action='run']"))
				.click();
			return true;
		});
		confirm();
		// made due now, the order closer takes it (the topic keeps its finished jobs)
		this.wait.until((d) -> state("order-close", ids.get(0)) == JobState.COMPLETED);
		this.wait.until((d) -> d.findElements(By.cssSelector("#waiting-jobs tbody tr")).size() == rows - 1);
		retrying((d) -> {
			d.findElement(By.cssSelector("#waiting-jobs tr[data-id='" + ids.get(1) + "'] button[data-action='cancel']"))
				.click();
			return true;
		});
		confirm();
		this.wait.until((d) -> d.findElements(By.cssSelector("#waiting-jobs tbody tr")).size() == rows - 2);
		assertThat(this.template.find("order-close", ids.get(1))).isEmpty();
		assertThat(state("order-close", ids.get(2))).isEqualTo(JobState.DELAYED);

		// a RESERVED job names the instance that holds it
		this.template.schedule("held", "h-1", "{}", Duration.ZERO);
		this.wait.until((d) -> !this.template.getOperations().reserve("held", 1, Duration.ofHours(1)).isEmpty());
		retrying((d) -> {
			new Select(d.findElement(By.id("waiting-topic"))).selectByValue("held");
			new Select(d.findElement(By.id("waiting-state"))).selectByValue("RESERVED");
			return true;
		});
		this.browser.findElement(By.cssSelector("#waiting-form button[type='submit']")).click();
		this.wait.until((d) -> !d.findElements(By.cssSelector("#waiting-jobs tr[data-id='h-1']")).isEmpty());
		assertThat(text(By.cssSelector("#waiting-jobs tr[data-id='h-1'] [data-field='reserved-by']")))
			.isEqualTo(this.queue.getInstanceId());
	}

	@Test
	void anOperatorPagesAMillionDelayedJobsOfOneTopicAndRunsAndCancelsRows() {
		// one due time for all: the clean-up finds them by it
		Instant due = Instant.now().plus(Duration.ofDays(30)).truncatedTo(ChronoUnit.MILLIS);
		long started = System.nanoTime();
		List<ScheduleRequest> chunk = new ArrayList<>(MILLION_CHUNK);
		for (int i = 0; i < MILLION; i++) {
			chunk.add(new ScheduleRequest("bulk", String.format("%07d", i), BULK_PAYLOAD, null, due, null, null,
					OnDuplicate.KEEP, Map.of(), null));
			if (chunk.size() == MILLION_CHUNK) {
				this.template.getOperations().scheduleAll(chunk);
				chunk.clear();
			}
		}
		System.out.println("a million DELAYED jobs scheduled in " + millisSince(started) + " ms");
		try {
			signIn();
			this.browser.findElement(By.id("nav-waiting")).click();
			retrying((d) -> {
				new Select(d.findElement(By.id("waiting-topic"))).selectByValue("bulk");
				new Select(d.findElement(By.id("waiting-state"))).selectByValue("DELAYED");
				return true;
			});
			long first = System.nanoTime();
			this.browser.findElement(By.cssSelector("#waiting-form button[type='submit']")).click();
			this.wait.until((d) -> d.findElements(By.cssSelector("#waiting-jobs tbody tr")).size() == 20);
			System.out.println("the first page of a million shown in " + millisSince(first) + " ms");
			assertThat(text(By.id("waiting-summary"))).isEqualTo("20 of 1,000,000 DELAYED jobs of bulk, earliest due first");
			assertThat(rowIds()).startsWith("0000000", "0000001").endsWith("0000019");
			long next = System.nanoTime();
			retrying((d) -> {
				d.findElement(By.id("waiting-more")).click();
				return true;
			});
			this.wait.until((d) -> d.findElements(By.cssSelector("#waiting-jobs tbody tr")).size() == 40);
			System.out.println("the next page shown in " + millisSince(next) + " ms");
			assertThat(rowIds()).endsWith("0000039");

			retrying((d) -> {
				d.findElement(By.cssSelector("#waiting-jobs tr[data-id='0000001'] button[data-action='run']")).click();
				return true;
			});
			confirm();
			this.wait.until((d) -> !rowIds().contains("0000001"));
			assertThat(state("bulk", "0000001")).isEqualTo(JobState.READY);
			retrying((d) -> {
				d.findElement(By.cssSelector("#waiting-jobs tr[data-id='0000002'] button[data-action='cancel']")).click();
				return true;
			});
			confirm();
			this.wait.until((d) -> !rowIds().contains("0000002") && rowIds().size() == 20);
			assertThat(this.template.find("bulk", "0000002")).isEmpty();
			assertThat(rowIds()).startsWith("0000000", "0000003");
			assertThat(text(By.id("waiting-summary"))).startsWith("20 of 999,998 DELAYED");
		}
		finally {
			this.template.cancel("bulk", "0000001");
			removeDelayed("bulk", due);
		}
	}

	@Test
	void theDashboardNeedsASignedInUser() {
		this.browser.get(base() + "/delayqueue-dashboard");
		this.wait.until((d) -> d.getCurrentUrl().endsWith("/login"));
		this.browser.findElement(By.name("username")).sendKeys("demo");
		this.browser.findElement(By.name("password")).sendKeys("wrong", Keys.ENTER);
		this.wait.until((d) -> d.getCurrentUrl().contains("/login?error"));
		assertThat(this.browser.getPageSource()).doesNotContain("chart-depth");
	}

	private List<String> rowIds() {
		return retrying((d) -> d.findElements(By.cssSelector("#waiting-jobs tbody tr"))
			.stream()
			.map((row) -> row.getDomAttribute("data-id"))
			.toList());
	}

	/** Drops a topic's DELAYED jobs of one due time in every bucket, with their counts. */
	private void removeDelayed(String topic, Instant due) {
		try (RedisConnection connection = this.queue.getConnectionFactory().getConnection()) {
			for (int b = 0; b < this.queue.getBuckets(); b++) {
				String prefix = "{" + this.queue.getNamespace() + ":" + b + "}:";
				connection.scriptingCommands()
					.eval(bytes(REMOVE_DELAYED), ReturnType.INTEGER, 3, bytes(prefix + "jobs"), bytes(prefix + "delayed"),
							bytes(prefix + "stats"), bytes(topic + ":"), bytes(Long.toString(due.toEpochMilli())));
			}
		}
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static long millisSince(long nanos) {
		return (System.nanoTime() - nanos) / 1_000_000;
	}

	private void signIn() {
		this.browser.get(base() + "/delayqueue-dashboard");
		this.wait.until((d) -> d.getCurrentUrl().endsWith("/login"));
		this.browser.findElement(By.name("username")).sendKeys("demo");
		this.browser.findElement(By.name("password")).sendKeys("demo-password", Keys.ENTER);
		this.wait.until((d) -> d.getCurrentUrl().endsWith("/delayqueue-dashboard"));
	}

	/** Focuses a button and presses Enter, then confirms in the dialog with Enter. */
	private void press(By button) {
		retrying((d) -> {
			d.findElement(button).sendKeys(Keys.ENTER);
			return true;
		});
		this.wait.until((d) -> d.findElement(By.id("confirm")).isDisplayed());
		WebElement ok = this.browser.findElement(By.id("confirm-ok"));
		assertThat(this.browser.switchTo().activeElement().getDomAttribute("id")).isEqualTo("confirm-cancel");
		ok.sendKeys(Keys.ENTER);
		this.wait.until((d) -> !d.findElement(By.id("confirm")).isDisplayed());
	}

	private void confirm() {
		this.wait.until((d) -> d.findElement(By.id("confirm")).isDisplayed());
		this.browser.findElement(By.id("confirm-ok")).click();
		this.wait.until((d) -> !d.findElement(By.id("confirm")).isDisplayed());
	}

	private String cell(String topic, String field) {
		return retrying((d) -> {
			List<WebElement> cells = d
				.findElements(By.cssSelector("#topics tr[data-topic='" + topic + "'] [data-field='" + field + "']"));
			return cells.isEmpty() ? "" : cells.get(0).getText();
		});
	}

	private List<String> options(String select) {
		return retrying((d) -> new Select(d.findElement(By.id(select))).getOptions()
			.stream()
			.map((option) -> option.getDomAttribute("value"))
			.toList());
	}

	private String listenerState(String listener) {
		return text(By.cssSelector("#listeners tr[data-listener='" + listener + "'] [data-field='state']"));
	}

	private JsonNode chart(String id) {
		String latest = this.browser.findElement(By.id(id)).getDomAttribute("data-latest");
		return json.readTree((latest != null) ? latest : "{}");
	}

	private String text(By by) {
		return retrying((d) -> d.findElement(by).getText());
	}

	/** The page re-renders rows while it updates: a found element may be replaced at once. */
	private <T> T retrying(Function<WebDriver, T> read) {
		return this.wait.ignoring(StaleElementReferenceException.class).until(read);
	}

	private JobState state(String topic, String id) {
		return this.template.find(topic, id).map((job) -> job.state()).orElse(null);
	}

	private void screenshot(String name) throws IOException {
		byte[] png = ((ChromeDriver) this.browser).getScreenshotAs(OutputType.BYTES);
		Path target = Path.of("target", "screenshots", name);
		Files.createDirectories(target.getParent());
		Files.write(target, png);
		String docs = System.getProperty("dashboard.screenshots");
		if (docs != null) {
			Path copy = Path.of(docs).isAbsolute() ? Path.of(docs, name) : Path.of("..", docs, name);
			Files.createDirectories(copy.getParent());
			Files.write(copy, png);
		}
	}

	private String base() {
		return "http://localhost:" + this.port;
	}

}
