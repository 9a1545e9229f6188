// +groupName=e16.errors.rkb.io
package v1
