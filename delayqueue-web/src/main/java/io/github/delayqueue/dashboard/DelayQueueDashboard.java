package io.github.delayqueue.dashboard;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.github.delayqueue.actuate.DelayQueueEndpoint;
import io.github.delayqueue.actuate.DelayQueueEndpoint.InvalidArgumentException;
import io.github.delayqueue.actuate.DelayQueueEndpoint.NotFoundException;
import io.github.delayqueue.actuate.EndpointDescriptors;
import io.github.delayqueue.core.DelayQueueConnectionException;
import io.github.delayqueue.core.NotEnoughReplicasException;
import jakarta.servlet.http.HttpServletRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.StreamUtils;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerRequest;
import org.springframework.web.servlet.function.ServerResponse;
import org.springframework.web.util.HtmlUtils;

/**
 * The operators' dashboard: one page, its script and style sheet, and the JSON routes the
 * page reads and writes through, all under one path ({@code delayqueue.dashboard.path}). The
 * routes answer through a {@link DelayQueueEndpoint} of their own, so what they show (payloads
 * only with {@code delayqueue.endpoint.show-payloads}) and how writes are audited (as
 * {@code dashboard}) follow the endpoint's rules.
 *
 * <ul>
 * <li>{@code GET <path>}: the page; {@code <path>/dashboard.js} and
 * {@code <path>/dashboard.css}.</li>
 * <li>{@code GET <path>/api/overview}: the endpoint's whole-queue read, with this instance's
 * counts of finished, retried and dead jobs per topic (from its metrics) for the rates; with
 * {@code history=true} also the depth and lag of each topic over the chart window
 * ({@link DashboardHistory}).</li>
 * <li>{@code GET <path>/api/dead?topic=&cursor=}: a page of a topic's dead jobs;
 * {@code GET <path>/api/job?topic=&id=}: one job; {@code GET <path>/api/waiting?topic=&state=&cursor=}:
 * a page of a topic's DELAYED, READY or RESERVED jobs.</li>
 * <li>{@code POST <path>/api/replay} ({@code topic}, optional {@code id}),
 * {@code POST <path>/api/cancel} ({@code topic}, {@code id}), {@code POST <path>/api/run} ({@code topic},
 * {@code id}: due now), {@code POST <path>/api/listener}
 * ({@code topic}, {@code listener}, {@code action} {@code pause} or {@code resume}; with
 * {@code instance}, refused with 409 by another instance),
 * {@code POST <path>/api/recurring} ({@code name}, {@code action} {@code pause},
 * {@code resume} or {@code trigger}): form parameters.</li>
 * </ul>
 *
 * <p>
 * Every request needs an authenticated user ({@link HttpServletRequest#getUserPrincipal()};
 * Spring Security's anonymous user is none) unless {@link Settings#allowUnauthenticated()},
 * with {@link Settings#role()} when one is set. A request the browser says comes from another
 * site ({@code Sec-Fetch-Site}) is refused, whatever CORS allows, unless it is a navigation
 * ({@code Sec-Fetch-Mode: navigate}), whose answer the browser shows to its user only. A
 * write needs a {@code POST} with the header {@value #WRITE_HEADER} (which a cross-site form
 * cannot send, and a cross-site script only after a CORS preflight), and is refused in
 * read-only mode. These hold whatever the application's security does; Spring Security's CSRF
 * protection, when on, checks its token before them (the page sends the token it was
 * rendered with). Refusals are {@code application/problem+json}. Every answer forbids caching
 * and framing and carries a content security policy that allows only the dashboard's own
 * script, style sheet and requests.
 */
public final class DelayQueueDashboard {

	/**
	 * The header every write must carry, as the page's script sends it.
	 */
	public static final String WRITE_HEADER = "X-DelayQueue-Dashboard";

	private static final Log logger = LogFactory.getLog(DelayQueueDashboard.class);

	private static final String CSRF_TOKEN = "org.springframework.security.web.csrf.CsrfToken";

	private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{(\\w+)}}");

	/**
	 * The dashboard's own JSON: what the page reads does not change with the application's
	 * Jackson settings (a naming strategy, say), as Actuator's does not.
	 */
	private static final JsonMapper JSON = JsonMapper.builder()
		.changeDefaultPropertyInclusion((inclusion) -> inclusion.withValueInclusion(JsonInclude.Include.NON_NULL))
		.build();

	private static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
			+ " img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

	private final DelayQueueEndpoint endpoint;

	private final Supplier<Map<String, JobCounts>> counts;

	private final Settings settings;

	private final @Nullable DashboardHistory history;

	private final String page;

	private final byte[] script;

	private final byte[] style;

	/**
	 * Creates the dashboard.
	 * @param endpoint the endpoint it reads and writes through
	 * @param counts this instance's counts of finished, retried and dead jobs by topic (empty
	 * without metrics)
	 * @param settings its settings
	 * @param history the figures of the last minutes, or {@code null} where nothing samples
	 * them (the page then draws from its own readings only)
	 */
	public DelayQueueDashboard(DelayQueueEndpoint endpoint, Supplier<Map<String, JobCounts>> counts,
			Settings settings, @Nullable DashboardHistory history) {
		this.endpoint = endpoint;
		this.counts = counts;
		this.settings = settings;
		this.history = history;
		this.page = new String(resource("index.html"), StandardCharsets.UTF_8);
		this.script = resource("dashboard.js");
		this.style = resource("dashboard.css");
	}

	/**
	 * The dashboard's routes.
	 * @return the routes, under {@link Settings#path()}
	 */
	public RouterFunction<ServerResponse> routes() {
		String path = this.settings.path();
		return RouterFunctions.route()
			.GET(path, this::page)
			.GET(path + "/dashboard.js", (request) -> asset(this.script, "text/javascript"))
			.GET(path + "/dashboard.css", (request) -> asset(this.style, "text/css"))
			.GET(path + "/api/overview", this::overview)
			.GET(path + "/api/dead", this::deadJobs)
			.GET(path + "/api/waiting", (request) -> json(this.endpoint.read(required(request, "topic"),
					request.param("cursor").orElse(null), null, limit(request), required(request, "state"))))
			.GET(path + "/api/job",
					(request) -> json(this.endpoint.job(required(request, "topic"), required(request, "id"))))
			.POST(path + "/api/replay", (request) -> json(this.endpoint.act(who(request), required(request, "topic"),
					"replay", null, request.param("id").orElse(null), null)))
			.POST(path + "/api/run", (request) -> json(this.endpoint.act(who(request), required(request, "topic"), "run",
					null, required(request, "id"), null)))
			.POST(path + "/api/cancel",
					(request) -> json(this.endpoint.cancel(who(request), required(request, "topic"), required(request, "id"))))
			.POST(path + "/api/listener", this::listener)
			.POST(path + "/api/recurring", (request) -> json(this.endpoint.write(who(request),
					oneOf(request, "action", "pause", "resume", "trigger"), null, required(request, "name"))))
			.filter(this::guard)
			.onError(NotFoundException.class, (ex, request) -> problem(HttpStatus.NOT_FOUND, ex.getMessage(), null))
			.onError(InvalidArgumentException.class, (ex, request) -> problem(HttpStatus.BAD_REQUEST, ex.getMessage(),
					((InvalidArgumentException) ex).getField()))
			.onError(DelayQueueConnectionException.class, (ex, request) -> {
				logger.warn("The dashboard could not reach Redis", ex);
				return problem(HttpStatus.SERVICE_UNAVAILABLE, "Redis cannot be reached (the application's log says more)",
						null);
			})
			.onError(NotEnoughReplicasException.class,
					(ex, request) -> problem(HttpStatus.SERVICE_UNAVAILABLE, ex.getMessage(), null))
			.build();
	}

	private ServerResponse guard(ServerRequest request, HandlerFunction<ServerResponse> next) throws Exception {
		if (!this.settings.allowUnauthenticated() && request.principal().isEmpty()) {
			return problem(HttpStatus.UNAUTHORIZED, "The dashboard needs an authenticated user: the application's"
					+ " security must sign its users in at " + this.settings.path(), null);
		}
		String role = this.settings.role();
		if (role != null && !request.servletRequest().isUserInRole(role)) {
			return problem(HttpStatus.FORBIDDEN, "The dashboard needs the role " + role
					+ " (delayqueue.dashboard.role)", null);
		}
		// from another site only a navigation, which shows the answer to the user, not to that site
		String site = request.headers().firstHeader("Sec-Fetch-Site");
		if (site != null && !site.equals("same-origin") && !(HttpMethod.GET.equals(request.method())
				&& "navigate".equals(request.headers().firstHeader("Sec-Fetch-Mode")))) {
			return problem(HttpStatus.FORBIDDEN,
					"The dashboard answers its own page only (Sec-Fetch-Site was '" + site + "')", null);
		}
		if (HttpMethod.POST.equals(request.method())) {
			if (this.settings.readOnly()) {
				return problem(HttpStatus.FORBIDDEN,
						"The dashboard is read-only (delayqueue.dashboard.read-only=true, or read-only access to the"
								+ " delayqueue endpoint): it changes nothing", null);
			}
			if (request.headers().firstHeader(WRITE_HEADER) == null) {
				return problem(HttpStatus.FORBIDDEN, "A write needs the header " + WRITE_HEADER
						+ ", as the dashboard's page sends it", null);
			}
		}
		return next.handle(request);
	}

	@SuppressWarnings("NullAway") // every placeholder of the page has a value
	private ServerResponse page(ServerRequest request) {
		HttpServletRequest servlet = request.servletRequest();
		Map<String, String> values = new LinkedHashMap<>();
		// under what comes before the application's path (the context path and the servlet
		// path), as the request came
		String full = request.requestPath().value();
		String within = request.requestPath().pathWithinApplication().value();
		String before = full.endsWith(within) ? full.substring(0, full.length() - within.length())
				: request.requestPath().contextPath().value();
		values.put("base", before + this.settings.path());
		values.put("readOnly", Boolean.toString(this.settings.readOnly()));
		values.put("showPayloads", Boolean.toString(this.settings.showPayloads()));
		values.put("refreshMillis", Long.toString(this.settings.refreshInterval().toMillis()));
		values.put("chartWindowMillis", Long.toString(this.settings.chartWindow().toMillis()));
		values.put("user", request.principal().map(Principal::getName).orElse(""));
		String[] csrf = csrf(servlet);
		values.put("csrfParameter", csrf[0]);
		values.put("csrfToken", csrf[1]);
		String html = PLACEHOLDER.matcher(this.page)
			.replaceAll((match) -> Matcher.quoteReplacement(HtmlUtils.htmlEscape(values.get(match.group(1)))));
		return secure(ServerResponse.ok()).contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
			.body(html);
	}

	/**
	 * The form parameter name and token of Spring Security's CSRF protection for this
	 * request, or two empty strings without it. The page sends the token as that parameter,
	 * which every token request handler of Spring Security reads (a masked token in a header
	 * is refused by the single-page-application one). Read through its interface, which this
	 * module does not depend on.
	 */
	private static String[] csrf(HttpServletRequest request) {
		Object token = request.getAttribute(CSRF_TOKEN);
		if (token == null || !ClassUtils.isPresent(CSRF_TOKEN, DelayQueueDashboard.class.getClassLoader())) {
			return new String[] { "", "" };
		}
		try {
			Class<?> type = ClassUtils.forName(CSRF_TOKEN, DelayQueueDashboard.class.getClassLoader());
			Method header = type.getMethod("getParameterName");
			Method value = type.getMethod("getToken");
			return new String[] { String.valueOf(ReflectionUtils.invokeMethod(header, token)),
					String.valueOf(ReflectionUtils.invokeMethod(value, token)) };
		}
		catch (ClassNotFoundException | NoSuchMethodException ex) {
			throw new IllegalStateException("Cannot read Spring Security's CSRF token", ex);
		}
	}

	private ServerResponse overview(ServerRequest request) {
		boolean withHistory = request.param("history").map(Boolean::parseBoolean).orElse(false);
		List<DashboardHistory.Sample> samples = (withHistory && this.history != null) ? this.history.samples()
				: List.of();
		return json(new Overview(this.endpoint.queue(), this.counts.get(), samples));
	}

	/**
	 * Pauses or resumes a listener of this instance; with {@code instance}, only when this
	 * instance is the one named (the one whose listeners the page showed).
	 */
	private ServerResponse listener(ServerRequest request) {
		String topic = required(request, "topic");
		String action = oneOf(request, "action", "pause", "resume");
		String listener = required(request, "listener");
		Optional<String> instance = request.param("instance");
		if (instance.isPresent() && !instance.get().equals(this.settings.instance())) {
			return problem(HttpStatus.CONFLICT, "This is instance " + this.settings.instance() + ", not "
					+ instance.get() + ": reload the page to see this instance's listeners", "instance");
		}
		return json(this.endpoint.act(who(request), topic, action, null, null, listener));
	}

	private static @Nullable Integer limit(ServerRequest request) {
		return request.param("limit").map((value) -> {
			try {
				return Integer.valueOf(value);
			}
			catch (NumberFormatException ex) {
				throw new InvalidArgumentException("limit", "limit must be a whole number, was '" + value + "'");
			}
		}).orElse(null);
	}

	private ServerResponse deadJobs(ServerRequest request) {
		String topic = required(request, "topic");
		try {
			return json(this.endpoint.topic(topic, request.param("cursor").orElse(null), null, limit(request)));
		}
		catch (NotFoundException ex) {
			// a topic without jobs and listeners (its last dead job deleted, say) has no dead jobs
			return json(Map.of("topic", topic, "deadJobs", Map.of("total", 0, "jobs", List.of())));
		}
	}

	private static String required(ServerRequest request, String name) {
		Optional<String> value = request.param(name);
		if (value.isEmpty() || value.get().isEmpty()) {
			throw new InvalidArgumentException(name, name + " is required");
		}
		return value.get();
	}

	private static String oneOf(ServerRequest request, String name, String... allowed) {
		String value = required(request, name);
		for (String candidate : allowed) {
			if (candidate.equals(value)) {
				return value;
			}
		}
		throw new InvalidArgumentException(name,
				name + " must be one of " + String.join(", ", allowed) + ", was '" + value + "'");
	}

	private static SecurityContext who(ServerRequest request) {
		Principal principal = request.principal().orElse(null);
		HttpServletRequest servlet = request.servletRequest();
		return new SecurityContext() {

			@Override
			public @Nullable Principal getPrincipal() {
				return principal;
			}

			@Override
			public boolean isUserInRole(String role) {
				return servlet.isUserInRole(role);
			}

		};
	}

	private static ServerResponse json(Object body) {
		return secure(ServerResponse.ok()).contentType(MediaType.APPLICATION_JSON).body(JSON.writeValueAsBytes(body));
	}

	private static ServerResponse asset(byte[] content, String type) {
		return secure(ServerResponse.ok()).contentType(new MediaType(MediaType.parseMediaType(type),
				StandardCharsets.UTF_8)).body(content);
	}

	/**
	 * An {@code application/problem+json} answer (RFC 9457), written as a map: it reads the same
	 * whatever JSON converter the context has.
	 */
	private static ServerResponse problem(HttpStatus status, @Nullable String detail, @Nullable String field) {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", "about:blank");
		problem.put("title", status.getReasonPhrase());
		problem.put("status", status.value());
		problem.put("detail", detail);
		if (field != null) {
			problem.put("field", field);
		}
		return secure(ServerResponse.status(status)).contentType(MediaType.APPLICATION_PROBLEM_JSON)
			.body(JSON.writeValueAsBytes(problem));
	}

	private static ServerResponse.BodyBuilder secure(ServerResponse.BodyBuilder builder) {
		return builder.cacheControl(CacheControl.noStore())
			.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
			.header("X-Content-Type-Options", "nosniff")
			.header("X-Frame-Options", "DENY")
			.header("Referrer-Policy", "same-origin");
	}

	private static byte[] resource(String name) {
		try (InputStream in = DelayQueueDashboard.class.getResourceAsStream(name)) {
			if (in == null) {
				throw new IllegalStateException("The dashboard's " + name + " is missing from the jar");
			}
			return StreamUtils.copyToByteArray(in);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot read the dashboard's " + name, ex);
		}
	}

	/**
	 * The dashboard's settings.
	 *
	 * @param path its path under the servlet context path ({@code /delayqueue-dashboard})
	 * @param readOnly whether it only shows (no write controls, writes refused)
	 * @param allowUnauthenticated whether requests without an authenticated user are served
	 * @param role the role every request's user must have, or {@code null} for any
	 * authenticated user
	 * @param refreshInterval how often the page reads the figures
	 * @param chartWindow how far back the page's charts reach
	 * @param showPayloads whether payloads are shown (as the endpoint shows them)
	 * @param instance this instance's name among the timer owners, or {@code null}
	 */
	public record Settings(String path, boolean readOnly, boolean allowUnauthenticated, @Nullable String role,
			Duration refreshInterval, Duration chartWindow, boolean showPayloads, @Nullable String instance) {

	}

	/**
	 * This instance's counts of a topic's jobs since it started, from its metrics
	 * ({@code delayqueue.jobs.completed|retried|dead}): the page turns them into rates.
	 *
	 * @param completed jobs finished
	 * @param retried failed deliveries to be delivered again
	 * @param dead jobs that became DEAD
	 */
	public record JobCounts(double completed, double retried, double dead) {

	}

	/**
	 * What the overview reads.
	 *
	 * @param queue the endpoint's whole-queue read
	 * @param counts this instance's counts by topic
	 * @param history the figures of the last minutes, when asked for ({@code history=true})
	 * and sampled
	 */
	public record Overview(EndpointDescriptors.QueueDescriptor queue, Map<String, JobCounts> counts,
			List<DashboardHistory.Sample> history) {

	}

}
