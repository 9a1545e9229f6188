// +groupName=e7.errors.rkb.io
package v1
