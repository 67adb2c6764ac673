package io.github.delayqueue.annotation;

import java.lang.reflect.Method;

import io.github.delayqueue.core.DelayedJob;
import io.github.delayqueue.listener.DelayedJobArgumentResolver;
import io.github.delayqueue.listener.DelayedJobInterceptor;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.messaging.handler.annotation.MessageMappingReflectiveProcessor;

/**
 * Registers the reflection a {@link DelayedListener} method needs in a native image: the
 * method, its payload type (or {@code T} of a {@code DelayedJob<T>} parameter)
 * and the interceptors it names.
 */
class DelayedListenerReflectiveProcessor extends MessageMappingReflectiveProcessor {

	private final BindingReflectionHintsRegistrar bindingRegistrar = new BindingReflectionHintsRegistrar();

	@Override
	protected void registerMethodHints(ReflectionHints hints, Method method) {
		super.registerMethodHints(hints, method);
		for (DelayedListener listener : AnnotatedElementUtils.getMergedRepeatableAnnotations(method,
				DelayedListener.class, DelayedListeners.class)) {
			for (Class<? extends DelayedJobInterceptor> interceptor : listener.interceptors()) {
				hints.registerType(interceptor, MemberCategory.INVOKE_DECLARED_CONSTRUCTORS);
			}
		}
	}

	@Override
	protected void registerParameterHints(ReflectionHints hints, Method method) {
		super.registerParameterHints(hints, method);
		for (int i = 0; i < method.getParameterCount(); i++) {
			MethodParameter parameter = new MethodParameter(method, i);
			if (parameter.getParameterType() == DelayedJob.class) {
				ResolvableType payload = ResolvableType.forMethodParameter(parameter).as(DelayedJob.class).getGeneric(0);
				if (payload.resolve() != null) {
					this.bindingRegistrar.registerReflectionHints(hints, payload.getType());
				}
			}
		}
	}

	@Override
	protected boolean couldBePayload(MethodParameter parameter) {
		return !DelayedJobArgumentResolver.isJobParameter(parameter) && super.couldBePayload(parameter);
	}

}
