//! The CronJob webhooks, as rkb scaffolds them, and webhooks that use every argument.
//!
//! +kubebuilder:webhookconfiguration:mutating=true,name=hooks-mutating-configuration
//! +kubebuilder:webhook:path=/mutate-hooks-corpus-rkb-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=hooks.corpus.rkb.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.kb.io,admissionReviewVersions=v1

/// CronJobCustomDefaulter sets defaults.
pub struct CronJobCustomDefaulter;

/// CronJobCustomValidator validates.
/// +kubebuilder:webhook:path=/validate-hooks-corpus-rkb-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=hooks.corpus.rkb.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.kb.io,admissionReviewVersions=v1
pub struct CronJobCustomValidator;

/// PodDefaulter uses a URL, every policy and several groups, verbs and review versions.
/// +kubebuilder:webhook:url="https://hooks.example.com:8443/pods",mutating=true,failurePolicy=ignore,matchPolicy=exact,sideEffects=NoneOnDryRun,groups=core;apps,resources=pods;deployments,verbs=CREATE;delete,versions=*,name=apod.kb.io,admissionReviewVersions=v1;v1beta1,timeoutSeconds=5,reinvocationPolicy=IfNeeded,webhookVersions=v1
pub struct PodDefaulter;

/// ConfigMapValidator names its service and port.
/// +kubebuilder:webhook:path=/validate-configmaps,mutating=false,failurePolicy=Fail,matchPolicy=Equivalent,sideEffects=None,groups="",resources=configmaps,verbs=update;connect,versions=v1,name=bconfigmap.kb.io,admissionReviewVersions=v1,serviceName=hooks,serviceNamespace=hooks-system,servicePort=9443,timeoutSeconds=30
pub struct ConfigMapValidator;
