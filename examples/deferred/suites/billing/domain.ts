// The shipped billing domain, unchanged: this example only adds surfaces and tasks.
export { default } from '../../../../suites/billing/domain.ts';
